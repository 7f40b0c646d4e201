// Package pgbackend runs one PostgreSQL instance per emulated service, on loopback, so that the
// endpoints the emulator returns accept what the real service's endpoints accept: role tsdbadmin,
// database tsdb, TLS (sslmode=require).
//
// Start runs initdb once into a template data directory (role tsdbadmin, database tsdb, small
// memory settings) and generates a self-signed TLS certificate; every service then gets a copy of
// that template on its own 127.0.0.1 port (Create). A fork is a physical copy of the running
// source (pg_basebackup), a read replica set a hot standby streaming from the service's instance
// (pg_basebackup -R), and a connection pooler a PgBouncer in front of an instance (when the
// pgbouncer binary is installed). Every instance makes read-only logins and sessions as the real
// service does (tsdb_admin.read_only_role, tsdb_admin.read_only_connection, and the
// timescale_functions for a read-only role that inherits tsdbadmin): see readonly.go.
//
// Nothing listens beyond 127.0.0.1. The unix sockets live in a private temporary directory
// (mode 0700): that is how the package administers its instances (as the bootstrap superuser
// "postgres", with a password of each instance that only the Manager knows) and how PgBouncer
// reaches them. TCP logins need TLS and a password (scram-sha-256). tsdbadmin and the roles it
// makes cannot reach the server's programs, files or other instances: see lockdown.go.
//
// Every server and PgBouncer process gets a parent-death signal: if the process that started them
// dies (even by SIGKILL), they stop. Close stops them all and removes the temporary directory; the
// instances' data directories are removed too unless Options.DataDir keeps them (the emulator's
// -state). When the caller runs as root, everything runs as the "postgres" system user (the server
// and PgBouncer refuse root).
package pgbackend

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvBinDir is the environment variable that names the directory of the PostgreSQL server
// binaries when Options.BinDir is empty.
const EnvBinDir = "DBCLOUD_POSTGRES_BINDIR"

// The connection parameters of every service, as on the real service.
const (
	AdminUser = "tsdbadmin"
	Database  = "tsdb"
	// ReadOnlyOption is the connection option the vendor's CLI adds for read replicas; it names a
	// custom setting that every instance knows (off by default).
	ReadOnlyOption = "tsdb_admin.read_only_connection"
)

// Options configures Start.
type Options struct {
	// BinDir is the directory holding initdb, postgres and pg_basebackup. Empty:
	// $DBCLOUD_POSTGRES_BINDIR, then `pg_config --bindir`, then the newest /usr/lib/postgresql/*/bin
	// (see FindBinDir).
	BinDir string
	// PgBouncer is the pgbouncer binary. Empty: looked up on PATH and in /usr/sbin; "none": no
	// pooler (EnablePooler fails with ErrNoPgBouncer).
	PgBouncer string
	// RunAs is the system user that runs the servers when the caller is root (default "postgres").
	// Ignored when the caller is not root.
	RunAs string
	// TempDir is the parent of the temporary directory (default os.TempDir()).
	TempDir string
	// DataDir, if set, holds the instances' data directories (one per name) and keeps them when
	// the Manager is closed: Create with a name whose directory exists starts that data again.
	// Empty: they live in the temporary directory and are removed with it.
	DataDir string
	// StartTimeout bounds initdb plus the template's set-up (default 60s).
	StartTimeout time.Duration
	// Logf, if set, receives a few lines about the instances' life.
	Logf func(format string, args ...any)
}

// ErrNoPgBouncer is the error of EnablePooler when pgbouncer is not installed.
var ErrNoPgBouncer = errors.New("pgbackend: pgbouncer is not installed: the connection pooler is emulated (nothing listens on its endpoint)")

// Manager runs the instances. Its methods are safe for concurrent use; operations on different
// instances run in parallel.
type Manager struct {
	binDir    string
	pgbouncer string
	cred      *syscall.Credential
	dir       string   // temporary directory: template/, tls/, s/ (sockets), i/ (data unless DataDir)
	lock      *os.File // dir's lock file, locked for the Manager's life (see createOwned)
	dataDir   string   // parent of the instances' directories
	keepData  bool
	certFile  string
	keyFile   string
	template  string
	extension string          // the read-only extension's shared library (see extension.go)
	exts      map[string]bool // installed extensions of interest (timescaledb, vector)
	logf      func(format string, args ...any)
	startup   time.Duration
	logs      logCache // what was read of each instance's server log (logs.go)

	// The lockdown (lockdown.go): the template's superuser password (each instance gets its own),
	// and the pg_hba.conf of every instance.
	templatePW, hbaFile string

	cleaner *os.File // write end of the cleaner's stdin (see startCleaner)

	mu        sync.Mutex
	instances map[string]*Instance
	closed    bool
}

// dirPrefix starts the name of a Manager's temporary directory.
const dirPrefix = "dbcloud-pg-"

// superuser is the bootstrap superuser's name (local connections only).
const superuser = "postgres"

// lockSuffix ends the name of the lock file beside a Manager's temporary directory
// (dbcloud-pg-XXXX.lock for dbcloud-pg-XXXX). The Manager creates and locks it (flock) before it
// creates the directory, and holds the lock for its life: a directory is its owner's as long as its
// lock is held, whatever its age and whether or not a server runs there.
const lockSuffix = ".lock"

// createOwned creates a new temporary directory in parent and its lock file, locked: the lock
// first, so that removeStale never sees the directory of a live Manager without a held lock.
func createOwned(parent string) (dir string, lock *os.File, err error) {
	if parent == "" {
		parent = os.TempDir()
	}
	for range 10 {
		f, err := os.CreateTemp(parent, dirPrefix+"*"+lockSuffix)
		if err != nil {
			return "", nil, fmt.Errorf("pgbackend: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			_ = os.Remove(f.Name())
			_ = f.Close()
			return "", nil, fmt.Errorf("pgbackend: locking %s: %w", f.Name(), err)
		}
		if !stillNamed(f) { // a removeStale took the fresh lock first and removed it: another name
			_ = f.Close()
			continue
		}
		dir = strings.TrimSuffix(f.Name(), lockSuffix)
		if err := os.Mkdir(dir, 0o700); err != nil {
			_ = os.Remove(f.Name())
			_ = f.Close()
			if errors.Is(err, os.ErrExist) { // a directory of an older version of this package
				continue
			}
			return "", nil, fmt.Errorf("pgbackend: %w", err)
		}
		return dir, f, nil
	}
	return "", nil, fmt.Errorf("pgbackend: no new temporary directory in %s after 10 tries", parent)
}

// stillNamed reports whether the open file f is still the file its name names.
func stillNamed(f *os.File) bool {
	open, err1 := f.Stat()
	named, err2 := os.Stat(f.Name())
	return err1 == nil && err2 == nil && os.SameFile(open, named)
}

// removeStale removes the temporary directories of managers that are gone (an emulator killed
// outright, whose cleaner could not finish): a directory is removed only when its lock file can
// be locked, that is when no live Manager holds it. Directories without a lock file (made by older
// versions of this package, which may still run) are left alone.
func removeStale(parent string) {
	if parent == "" {
		parent = os.TempDir()
	}
	locks, _ := filepath.Glob(filepath.Join(parent, dirPrefix+"*"+lockSuffix))
	for _, l := range locks {
		f, err := os.Open(l)
		if err != nil {
			continue // another user's, or just removed
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && stillNamed(f) {
			_ = os.RemoveAll(strings.TrimSuffix(l, lockSuffix))
			_ = os.Remove(l)
		}
		_ = f.Close()
	}
}

// FindBinDir returns the directory of the PostgreSQL server binaries: hint if not empty, else
// $DBCLOUD_POSTGRES_BINDIR, else `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin.
// The directory must hold initdb, postgres and pg_basebackup.
func FindBinDir(hint string) (string, error) {
	var tried []string
	check := func(dir string) bool {
		tried = append(tried, dir)
		return isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "postgres")) &&
			isExec(filepath.Join(dir, "pg_basebackup"))
	}
	if hint != "" {
		if check(hint) {
			return hint, nil
		}
		return "", fmt.Errorf("pgbackend: %s does not hold the PostgreSQL server binaries initdb, postgres and pg_basebackup", hint)
	}
	if env := os.Getenv(EnvBinDir); env != "" {
		if check(env) {
			return env, nil
		}
		return "", fmt.Errorf("pgbackend: $%s=%s does not hold the PostgreSQL server binaries initdb, postgres and pg_basebackup", EnvBinDir, env)
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); dir != "" && check(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) }) // newest first
	for _, d := range dirs {
		if check(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("pgbackend: PostgreSQL server binaries (initdb, postgres, pg_basebackup) not found (looked in: %s); "+
		"install them (Debian/Ubuntu: apt-get install -y postgresql) or name their directory with $%s",
		strings.Join(append(tried, "pg_config --bindir"), ", "), EnvBinDir)
}

// FindPgBouncer returns the pgbouncer binary: on PATH, else /usr/sbin/pgbouncer ("" if none).
func FindPgBouncer() string {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p
	}
	if isExec("/usr/sbin/pgbouncer") {
		return "/usr/sbin/pgbouncer"
	}
	return ""
}

// versionOf reads the major version from /usr/lib/postgresql/<version>/bin (0 if none).
func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// Start prepares the template data directory and the TLS certificate. It starts no instance.
// Close it when done. When the read-only extension cannot be built here, the error is an
// ErrNoExtension (a *MissingError when something is missing: it says what, and how to add it).
func Start(ctx context.Context, opts Options) (m *Manager, err error) {
	began := time.Now()
	binDir, err := FindBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	cred, err := credentialFor(opts.RunAs)
	if err != nil {
		return nil, err
	}
	m, err = newManager(opts, binDir, cred)
	if err != nil {
		return nil, err
	}
	created := m // m is nil once an error is returned
	defer func() {
		if err != nil {
			created.discard()
		}
	}()
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := m.prepare(ctx); err != nil {
		return nil, err
	}
	m.startup = time.Since(began)
	m.logf("pgbackend: PostgreSQL (%s): instance template ready in %v; pgbouncer: %s", binDir, m.startup.Round(time.Millisecond), orNone(m.pgbouncer))
	return m, nil
}

// newManager removes the directories of managers that are gone, creates this one's (owned: see
// createOwned) and settles where the instances' data live and which pgbouncer runs the poolers.
func newManager(opts Options, binDir string, cred *syscall.Credential) (*Manager, error) {
	removeStale(opts.TempDir)
	dir, lock, err := createOwned(opts.TempDir)
	if err != nil {
		return nil, err
	}
	m := &Manager{binDir: binDir, cred: cred, dir: dir, lock: lock, logf: opts.Logf, instances: map[string]*Instance{}, exts: map[string]bool{}}
	if m.logf == nil {
		m.logf = func(string, ...any) {}
	}
	switch opts.PgBouncer {
	case "":
		m.pgbouncer = FindPgBouncer()
	case "none":
	default:
		m.pgbouncer = opts.PgBouncer
	}
	m.dataDir = filepath.Join(dir, "i")
	if opts.DataDir != "" {
		m.dataDir, m.keepData = opts.DataDir, true
		if err := m.checkSearchable(opts.DataDir); err != nil {
			m.discard()
			return nil, err
		}
	}
	return m, nil
}

// prepare makes the directories, starts the cleaner, writes the certificate, builds the read-only
// extension and makes the template.
func (m *Manager) prepare(ctx context.Context) error {
	for _, d := range []string{m.dir, filepath.Join(m.dir, "tls"), filepath.Join(m.dir, "s"), m.dataDir} {
		if err := m.mkdir(d); err != nil {
			return err
		}
	}
	if err := m.startCleaner(); err != nil {
		return err
	}
	if err := m.writeCert(); err != nil {
		return err
	}
	m.findExtensions()
	m.extension = filepath.Join(m.dir, "lib", extensionName+".so")
	if err := m.mkdir(filepath.Dir(m.extension)); err != nil {
		return err
	}
	took, built, err := m.buildExtension(m.extension)
	if err != nil {
		return err
	}
	m.logf("pgbackend: read-only extension ready in %v (built now: %v)", took.Round(time.Millisecond), built)
	return m.makeTemplate(ctx)
}

// findExtensions notes which extensions of interest (timescaledb, vector) the server has.
func (m *Manager) findExtensions() {
	share := filepath.Join(filepath.Dir(m.binDir), "share") // a plain source install
	if out, err := exec.Command(filepath.Join(m.binDir, "pg_config"), "--sharedir").Output(); err == nil {
		share = strings.TrimSpace(string(out))
	}
	for _, ext := range []string{"timescaledb", "vector"} {
		if _, err := os.Stat(filepath.Join(share, "extension", ext+".control")); err == nil {
			m.exts[ext] = true
		}
	}
}

// discard removes the directory and the lock of a Manager whose start failed.
func (m *Manager) discard() {
	_ = os.RemoveAll(m.dir)
	m.unlock()
	if m.cleaner != nil {
		_ = m.cleaner.Close()
	}
}

// unlock removes the lock file (after the directory) and releases the lock.
func (m *Manager) unlock() {
	if m.lock != nil {
		_ = os.Remove(m.lock.Name())
		_ = m.lock.Close()
	}
}

func orNone(s string) string {
	if s == "" {
		return "not installed"
	}
	return s
}

// checkSearchable checks that the server's user (when it is not the caller) can reach dir: every
// existing directory above it must be searchable by others.
func (m *Manager) checkSearchable(dir string) error {
	if m.cred == nil {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil && fi.Mode().Perm()&0o001 == 0 {
			if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != m.cred.Uid {
				return fmt.Errorf("pgbackend: the data directory %s is not reachable by the PostgreSQL server's user (uid %d): "+
					"%s is not searchable by others (chmod o+x it, or run the emulator as a normal user)", dir, m.cred.Uid, d)
			}
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// cleanerScript waits for EOF on its stdin (the Manager's process is gone, however it ended), then
// for the servers to exit (their parent-death signal stops them), and removes the temporary
// directory $1 (the kept data directories live elsewhere), then its lock file.
const cleanerScript = `read -r _ || true
for _ in $(seq 300); do
	set -- "$1" "$1"/s/*/.s.PGSQL.*
	[ -e "$2" ] || break
	set -- "$1"
	sleep 0.1
done
rm -rf "$1"
rm -f "$1` + lockSuffix + `"`

// startCleaner starts a small shell process that removes the temporary directory once this
// process is gone, even if it was killed with SIGKILL (Close removes it too).
func (m *Manager) startCleaner() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	defer func() { _ = r.Close() }()
	cmd := exec.Command("/bin/sh", "-c", cleanerScript, "dbcloud-pg-cleaner", m.dir)
	cmd.Stdin = r
	cmd.Env = childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // outlives this process on purpose
	if err := cmd.Start(); err != nil {
		_ = w.Close()
		return fmt.Errorf("pgbackend: starting the cleaner: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	m.cleaner = w
	return nil
}

// mkdir creates a private directory owned by the server's user.
func (m *Manager) mkdir(d string) error {
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	return m.chown(d)
}

func (m *Manager) chown(path string) error {
	if m.cred == nil {
		return nil
	}
	if err := os.Chown(path, int(m.cred.Uid), int(m.cred.Gid)); err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	return nil
}

// writeFile writes a private file owned by the server's user, whole: a new file renamed over the old
// one, so that a reader (PgBouncer re-reading its auth_file on SIGHUP, which skips a file of the same
// inode, size and mtime second) never sees it half written or unchanged.
func (m *Manager) writeFile(path string, data []byte) error {
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	if err := m.chown(tmp); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("pgbackend: %w", err)
	}
	return nil
}

// writeCert generates the self-signed certificate every instance and PgBouncer serves.
func (m *Manager) writeCert() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "dbcloud-emulator"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	m.certFile = filepath.Join(m.dir, "tls", "server.crt")
	m.keyFile = filepath.Join(m.dir, "tls", "server.key")
	if err := m.writeFile(m.certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})); err != nil {
		return err
	}
	return m.writeFile(m.keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))
}

// CertFile is the PEM file of the self-signed certificate the instances serve.
func (m *Manager) CertFile() string { return m.certFile }

// baseConf are the settings of every instance: small memory and few processes (no autovacuum, no
// logical replication workers), no durability work (the data of an emulated service is not
// precious), physical replication allowed for forks and replicas.
const baseConf = `
# dbcloud emulator
listen_addresses = '127.0.0.1'
max_connections = 30
superuser_reserved_connections = 2
shared_buffers = 2MB
wal_buffers = 64kB
work_mem = 1MB
maintenance_work_mem = 4MB
max_worker_processes = 4
max_parallel_workers = 0
max_parallel_workers_per_gather = 0
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = replica
max_wal_senders = 6
max_replication_slots = 6
min_wal_size = 4MB
max_wal_size = 64MB
# Keep recent WAL for pg_basebackup -X stream and standbys that start a moment behind: with 1 MB
# segments a checkpoint under load could recycle the segment a copy still needs.
wal_keep_size = 32MB
checkpoint_timeout = 1h
hot_standby = on
# Fewer idle processes: no autovacuum launcher, no logical replication launcher.
autovacuum = off
max_logical_replication_workers = 0
max_sync_workers_per_subscription = 0
password_encryption = scram-sha-256
ssl = on
log_min_messages = warning
log_line_prefix = '%m [%p] '
dynamic_shared_memory_type = posix
huge_pages = off
jit = off
` + ReadOnlyOption + ` = off
` + ReadOnlyRoleSetting + ` = off
`

// makeTemplate runs initdb and sets the template up: role tsdbadmin (not a superuser: it may
// create roles and databases) owning database tsdb.
func (m *Manager) makeTemplate(ctx context.Context) error {
	m.template = filepath.Join(m.dir, "template")
	began := time.Now()
	m.templatePW = newSecret()
	pwFile := filepath.Join(m.dir, "superuser.pw")
	if err := m.writeFile(pwFile, []byte(m.templatePW+"\n")); err != nil {
		return err
	}
	defer func() { _ = os.Remove(pwFile) }()
	m.hbaFile = filepath.Join(m.dir, "pg_hba.conf")
	if err := m.writeFile(m.hbaFile, []byte(hbaConf)); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(m.binDir, "initdb"),
		"-D", m.template, "-U", superuser, "--pwfile", pwFile, "-A", "scram-sha-256",
		"-E", "UTF8", "--locale", "C", "--no-sync", "--no-instructions", "--wal-segsize=1")
	cmd.Dir = m.dir
	cmd.Env = childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: m.cred, Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgbackend: initdb: %w\n%s", err, tail(out, 2000))
	}
	initdb := time.Since(began)
	if err := m.writeFile(filepath.Join(m.template, "pg_hba.conf"), []byte(hbaConf)); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(m.template, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	conf := baseConf
	if m.exts["timescaledb"] {
		conf += "shared_preload_libraries = 'timescaledb'\ntimescaledb.telemetry_level = off\n"
	}
	_, err = f.WriteString(conf)
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	// Start the template once on its socket only to create the role and the database.
	t := &Instance{m: m, name: "template", data: m.template, sock: filepath.Join(m.dir, "s", "template")}
	t.setSuperuserPassword(m.templatePW)
	if err := m.mkdir(t.sock); err != nil {
		return err
	}
	if err := t.start(ctx, false); err != nil {
		return err
	}
	err = t.admin(ctx, "postgres",
		"CREATE ROLE "+AdminUser+" LOGIN CREATEROLE CREATEDB IN ROLE pg_read_all_stats, pg_signal_backend",
		"CREATE DATABASE "+Database+" OWNER "+AdminUser,
	)
	if err == nil {
		err = t.admin(ctx, Database, "DROP DATABASE postgres")
	}
	if err == nil {
		err = t.admin(ctx, Database, readOnlySetup...) // see readonly.go
	}
	t.stop()
	if err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(m.template, "postmaster.opts"))
	m.logf("pgbackend: initdb %v, template %v", initdb.Round(time.Millisecond), (time.Since(began) - initdb).Round(time.Millisecond))
	return nil
}

// StartupTime is how long Start took (initdb and the template's set-up).
func (m *Manager) StartupTime() time.Duration { return m.startup }

// Extension reports whether an extension (timescaledb, vector) is installed.
func (m *Manager) Extension(name string) bool { return m.exts[name] }

// PgBouncer reports whether connection poolers are real (pgbouncer installed).
func (m *Manager) PgBouncer() bool { return m.pgbouncer != "" }

// credentialFor returns the credential to run the servers with: nil when the caller is not root.
func credentialFor(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if name == "" {
		name = "postgres"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("pgbackend: running as root, and the PostgreSQL server refuses root; system user %q: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("pgbackend: user %q: %w", name, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("pgbackend: user %q is root; the PostgreSQL server refuses root", name)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// childEnv is the environment of the servers and tools: no PG* variables of the caller.
func childEnv() []string {
	env := []string{"LC_ALL=C", "LANG=C"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "TZ=") {
			env = append(env, kv)
		}
	}
	return env
}

// Close stops every instance and pooler and removes the temporary directory (and the data
// directories unless Options.DataDir keeps them). It may be called more than once.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	all := make([]*Instance, 0, len(m.instances))
	for _, in := range m.instances {
		all = append(all, in)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, in := range all {
		wg.Go(func() {
			in.mu.Lock()
			defer in.mu.Unlock()
			in.stopPooler()
			in.stop()
		})
	}
	wg.Wait()
	m.logf("pgbackend: %d PostgreSQL instances stopped", len(all))
	err := os.RemoveAll(m.dir)
	m.unlock()
	if m.cleaner != nil {
		_ = m.cleaner.Close()
	}
	return err
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func tail(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,59}$`)

// checkID refuses names that cannot safely name a directory.
func checkID(id string) error {
	if !idPattern.MatchString(id) || id == "template" {
		return fmt.Errorf("pgbackend: %q cannot name an instance (want 1-60 lower-case letters, digits or _)", id)
	}
	return nil
}

// literal quotes a string literal (standard_conforming_strings is on).
func literal(s string) (string, error) {
	if strings.ContainsRune(s, 0) {
		return "", errors.New("pgbackend: a password must not contain NUL")
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'", nil
}

// ConnConfig is the configuration of a TLS login (sslmode=require) to host:port.
func ConnConfig(host string, port int, user, password, database string) *pgx.ConnConfig {
	// Host and port go into the string: pgx sets TLS up for the host it parses.
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host='%s' port=%d sslmode=require connect_timeout=10",
		strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(host), port))
	if err != nil {
		panic(err)
	}
	cfg.User = user
	cfg.Password = password
	cfg.Database = database
	cfg.Fallbacks = nil
	return cfg
}
