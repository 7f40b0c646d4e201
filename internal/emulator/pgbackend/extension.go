package pgbackend

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// The read-only enforcement is a small C extension (tsdbadmin/tsdb_admin.c, see readonly.go; with
// the lockdown of tsdbadmin/lockdown.c, see lockdown.go), built with PGXS against the server's
// headers (Debian: postgresql-server-dev-<major>) and loaded into every backend with
// session_preload_libraries.

//go:embed tsdbadmin/*.c
var extensionSource embed.FS

// extensionFiles are the extension's C sources, in the order of the makefile's OBJS.
var extensionFiles = []string{"tsdb_admin.c", "lockdown.c"}

const extensionName = "tsdb_admin"

// extensionMakefile is the PGXS makefile; with_llvm=no: no JIT bitcode (needs clang).
const extensionMakefile = `MODULE_big = tsdb_admin
OBJS = tsdb_admin.o lockdown.o
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)
`

// EnvCacheDir names the directory where the extension is built (default: the user's cache
// directory, dbcloud-emulator/pgext). A build is reused while its source and the server's version
// are the same.
const EnvCacheDir = "DBCLOUD_EMULATOR_CACHE"

// EnvPgConfig names the pg_config that builds the extension (default: the one beside the server
// binaries, else the one on PATH).
const EnvPgConfig = "DBCLOUD_PG_CONFIG"

// ErrNoExtension is the error (errors.Is) of Start when the read-only extension cannot be built on
// this machine: something it needs is missing (a *MissingError says what) or the build failed.
var ErrNoExtension = errors.New("pgbackend: the read-only extension cannot be built")

// MissingError names what building the read-only extension needs and this machine lacks, with the
// Debian packages that add it.
type MissingError struct {
	Missing  []string // what, e.g. "PostgreSQL 15's server headers (postgres.h in ...)"
	Packages []string // the Debian packages that add it
}

func (e *MissingError) Error() string {
	them := "it"
	if len(e.Missing) > 1 {
		them = "them"
	}
	return fmt.Sprintf("pgbackend: the read-only extension cannot be built: missing %s; add %s with: %s",
		strings.Join(e.Missing, ", "), them, e.Command())
}

// Command is the command that installs what is missing (as root).
func (e *MissingError) Command() string { return "apt-get install -y " + strings.Join(e.Packages, " ") }

func (e *MissingError) add(what, pkg string) {
	e.Missing = append(e.Missing, what)
	e.Packages = append(e.Packages, pkg)
}

// Is makes a *MissingError an ErrNoExtension.
func (e *MissingError) Is(target error) bool { return target == ErrNoExtension }

// majorPattern finds the major version in `pg_config --version`.
var majorPattern = regexp.MustCompile(`PostgreSQL (\d+)`)

// checkBuildTools answers a *MissingError when the server headers (postgres.h under
// `pg_config --includedir-server`, of the server's major version), PGXS, make or the C compiler PGXS
// uses are missing.
func checkBuildTools(pgConfig, version string) error {
	major := "all"
	if v := majorPattern.FindStringSubmatch(version); v != nil {
		major = v[1]
	}
	var e MissingError
	out, err := exec.Command(pgConfig, "--includedir-server").Output()
	include := strings.TrimSpace(string(out))
	pgxs, err2 := exec.Command(pgConfig, "--pgxs").Output()
	if err != nil || err2 != nil || !exists(filepath.Join(include, "postgres.h")) || !exists(strings.TrimSpace(string(pgxs))) {
		if include == "" {
			include = pgConfig + " --includedir-server"
		}
		e.add(fmt.Sprintf("PostgreSQL %s's server headers (postgres.h in %s)", major, include), "postgresql-server-dev-"+major)
	}
	if _, err := exec.LookPath("make"); err != nil {
		e.add("make", "make")
	}
	cc := "gcc"
	if out, err := exec.Command(pgConfig, "--cc").Output(); err == nil && len(strings.Fields(string(out))) > 0 {
		cc = strings.Fields(string(out))[0]
	}
	if _, err := exec.LookPath(cc); err != nil {
		e.add("the C compiler "+cc, filepath.Base(cc))
	}
	if len(e.Missing) > 0 {
		return &e
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return path != "" && err == nil
}

// extensionPgConfig is the pg_config that builds the extension: $DBCLOUD_PG_CONFIG, else the one
// beside the server binaries, else the one on PATH.
func (m *Manager) extensionPgConfig() string {
	if p := os.Getenv(EnvPgConfig); p != "" {
		return p
	}
	pgConfig := filepath.Join(m.binDir, "pg_config")
	if !isExec(pgConfig) {
		if p, err := exec.LookPath("pg_config"); err == nil {
			pgConfig = p
		}
	}
	return pgConfig
}

// buildExtension builds the extension for the server in binDir (or reuses the build of the same
// source and server version) and copies it to dst, owned by the server's user. It answers how
// long that took and whether it was built now.
func (m *Manager) buildExtension(dst string) (took time.Duration, built bool, err error) {
	began := time.Now()
	src := map[string][]byte{}
	sum := sha256.New()
	for _, name := range extensionFiles {
		b, err := extensionSource.ReadFile("tsdbadmin/" + name)
		if err != nil {
			return 0, false, fmt.Errorf("pgbackend: %w", err)
		}
		src[name] = b
		sum.Write([]byte(name))
		sum.Write(b)
	}
	pgConfig := m.extensionPgConfig()
	version, err := exec.Command(pgConfig, "--version").Output()
	if err != nil {
		return 0, false, fmt.Errorf("pgbackend: %s --version: %w", pgConfig, err)
	}
	sum.Write([]byte(extensionMakefile))
	sum.Write(version)
	key := hex.EncodeToString(sum.Sum(nil))[:16]
	cache := os.Getenv(EnvCacheDir)
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		cache = filepath.Join(base, "dbcloud-emulator", "pgext")
	}
	dir := filepath.Join(cache, key)
	so := filepath.Join(dir, extensionName+".so")
	if _, err := os.Stat(so); err != nil {
		if err := checkBuildTools(pgConfig, string(version)); err != nil {
			return 0, false, err
		}
		if err := buildIn(dir, pgConfig, src, strings.TrimSpace(string(version))); err != nil {
			return 0, false, err
		}
		built = true
	}
	data, err := os.ReadFile(so)
	if err != nil {
		return 0, false, fmt.Errorf("pgbackend: %w", err)
	}
	if err := m.writeFile(dst, data); err != nil {
		return 0, false, err
	}
	return time.Since(began), built, nil
}

// buildIn builds the extension in a fresh directory and moves it to dir when it is complete (two
// emulators building at once each finish their own).
func buildIn(dir, pgConfig string, src map[string][]byte, version string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	work, err := os.MkdirTemp(filepath.Dir(dir), "build-")
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	err = os.WriteFile(filepath.Join(work, "Makefile"), []byte(extensionMakefile), 0o644)
	for name, b := range src {
		err = errors.Join(err, os.WriteFile(filepath.Join(work, name), b, 0o644))
	}
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	cmd := exec.Command("make", "--no-print-directory", "PG_CONFIG="+pgConfig, "with_llvm=no")
	cmd.Dir = work
	cmd.Env = childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: make (%s): %w\n%s", ErrNoExtension, version, err, tail(out, 2000))
	}
	if _, err := os.Stat(filepath.Join(work, extensionName+".so")); err != nil {
		return fmt.Errorf("pgbackend: building the read-only extension: %w", err)
	}
	if err := os.Rename(work, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, extensionName+".so")); serr == nil {
			return nil // another emulator finished the same build first
		}
		return fmt.Errorf("pgbackend: %w", err)
	}
	return nil
}
