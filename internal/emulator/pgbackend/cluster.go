// Package pgbackend runs one private PostgreSQL cluster on loopback and gives each emulated service
// its own login role and database in it, so that the endpoints the emulator returns accept real
// connections.
//
// Start runs initdb into a fresh temporary directory and starts the server on 127.0.0.1 on a free
// port (the unix socket lives in the same directory); Close stops the server and removes the
// directory. The server gets SIGQUIT (immediate shutdown) if the process that started it dies.
// When the caller runs as root, initdb and the server run as the "postgres" system user (the server
// refuses to run as root).
//
// Each service id names both its login role and its database (ids are short lower-case
// alphanumeric strings; anything else is refused). Identifiers are always quoted and passwords are
// sent as escaped string literals.
//
// Emulation, not replication: read-only roles (ReadOnlyRole) stand in for read replicas and HA
// replicas. They log in to the primary's own database with default_transaction_read_only set and
// only the privileges of pg_read_all_data.
package pgbackend

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
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

// Options configures Start.
type Options struct {
	// BinDir is the directory holding initdb and postgres. Empty: $DBCLOUD_POSTGRES_BINDIR, then
	// `pg_config --bindir`, then the newest /usr/lib/postgresql/*/bin (see FindBinDir).
	BinDir string
	// RunAs is the system user that runs initdb and the server when the caller is root
	// (default "postgres"). Ignored when the caller is not root.
	RunAs string
	// TempDir is the parent of the cluster's temporary directory (default os.TempDir()).
	TempDir string
	// StartTimeout bounds initdb plus server start-up (default 60s).
	StartTimeout time.Duration
	// Logf, if set, receives a few lines about the cluster's life (start, stop, notes).
	Logf func(format string, args ...any)
}

// Cluster is a running PostgreSQL server. Its methods are safe for concurrent use; they run one
// at a time.
type Cluster struct {
	binDir    string
	dir       string // temporary directory: data/, socket, server log
	host      string
	port      int
	superPW   string
	timescale bool
	logf      func(format string, args ...any)
	cmd       *exec.Cmd
	exited    chan struct{} // closed when the server process has exited
	startup   time.Duration
	initdb    time.Duration // the initdb part of startup

	mu     sync.Mutex // serialises admin SQL
	admin  *pgx.Conn
	closed bool
}

// dirPrefix starts the name of a cluster's temporary directory.
const dirPrefix = "dbcloud-pg-"

// removeStale removes the directories of clusters whose server is gone (an emulator killed
// outright: the server then stops through its parent-death signal and removes its postmaster.pid,
// but nobody removes the directory). Directories younger than ten minutes are left alone: they
// may belong to a cluster being created.
func removeStale(parent string) {
	if parent == "" {
		parent = os.TempDir()
	}
	dirs, _ := filepath.Glob(filepath.Join(parent, dirPrefix+"*"))
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() || time.Since(fi.ModTime()) < 10*time.Minute {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "data", "postmaster.pid")); errors.Is(err, os.ErrNotExist) {
			_ = os.RemoveAll(d)
		}
	}
}

// superuser is the bootstrap superuser's name.
const superuser = "postgres"

// FindBinDir returns the directory of the PostgreSQL server binaries: hint if not empty, else
// $DBCLOUD_POSTGRES_BINDIR, else `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin.
// The directory must hold initdb and postgres.
func FindBinDir(hint string) (string, error) {
	var tried []string
	check := func(dir string) bool {
		tried = append(tried, dir)
		return isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "postgres"))
	}
	if hint != "" {
		if check(hint) {
			return hint, nil
		}
		return "", fmt.Errorf("pgbackend: %s does not hold the PostgreSQL server binaries initdb and postgres", hint)
	}
	if env := os.Getenv(EnvBinDir); env != "" {
		if check(env) {
			return env, nil
		}
		return "", fmt.Errorf("pgbackend: $%s=%s does not hold the PostgreSQL server binaries initdb and postgres", EnvBinDir, env)
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
	return "", fmt.Errorf("pgbackend: PostgreSQL server binaries (initdb, postgres) not found (looked in: %s); "+
		"install them (Debian/Ubuntu: apt-get install postgresql) or name their directory with $%s",
		strings.Join(append(tried, "pg_config --bindir"), ", "), EnvBinDir)
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

// Start creates and starts a cluster. It returns once the server accepts connections. Close it
// when done.
func Start(ctx context.Context, opts Options) (c *Cluster, err error) {
	began := time.Now()
	binDir, err := FindBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cred, err := credentialFor(opts.RunAs)
	if err != nil {
		return nil, err
	}
	removeStale(opts.TempDir)
	dir, err := os.MkdirTemp(opts.TempDir, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgbackend: %w", err)
	}
	c = &Cluster{binDir: binDir, dir: dir, host: "127.0.0.1", logf: opts.Logf, exited: make(chan struct{})}
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	defer func() {
		if err != nil {
			c.stopServer()
			_ = os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("pgbackend: %w", err)
		}
	}

	c.superPW = randomPassword()
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(c.superPW+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("pgbackend: %w", err)
	}
	if cred != nil {
		if err := os.Chown(pwfile, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("pgbackend: %w", err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"),
		"-D", data, "-U", superuser, "--pwfile", pwfile, "-A", "scram-sha-256",
		"-E", "UTF8", "--locale", "C", "--no-sync", "--no-instructions")
	initdb.Dir = dir
	initdb.Env = childEnv()
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgbackend: initdb: %w\n%s", err, tail(out, 2000))
	}
	_ = os.Remove(pwfile)
	c.initdb = time.Since(began)

	c.timescale = c.hasTimescale()
	// A free port can be taken between choosing and binding it: try a few.
	for attempt := 1; ; attempt++ {
		if c.port, err = freePort(); err != nil {
			return nil, fmt.Errorf("pgbackend: choosing a port: %w", err)
		}
		err = c.startServer(ctx, data, cred)
		if err == nil || attempt == 3 || ctx.Err() != nil || !strings.Contains(err.Error(), "in use") {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	c.startup = time.Since(began)
	c.logf("pgbackend: PostgreSQL (%s) on %s:%d, started in %v (initdb %v)", binDir, c.host, c.port,
		c.startup.Round(time.Millisecond), c.initdb.Round(time.Millisecond))
	return c, nil
}

// credentialFor returns the credential to run the server with: nil when the caller is not root.
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

// childEnv is the environment of initdb and the server: no PG* variables of the caller.
func childEnv() []string {
	env := []string{"LC_ALL=C", "LANG=C"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "TZ=") {
			env = append(env, kv)
		}
	}
	return env
}

// hasTimescale reports whether the installation has the timescaledb extension.
func (c *Cluster) hasTimescale() bool {
	share := filepath.Join(filepath.Dir(c.binDir), "share") // a plain source install
	if out, err := exec.Command(filepath.Join(c.binDir, "pg_config"), "--sharedir").Output(); err == nil {
		share = strings.TrimSpace(string(out))
	}
	_, err := os.Stat(filepath.Join(share, "extension", "timescaledb.control"))
	return err == nil
}

func (c *Cluster) startServer(ctx context.Context, data string, cred *syscall.Credential) error {
	logPath := filepath.Join(c.dir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	defer func() { _ = logFile.Close() }() // the child has its own descriptor
	args := []string{
		"-D", data,
		"-c", "listen_addresses=" + c.host,
		"-c", "port=" + strconv.Itoa(c.port),
		"-c", "unix_socket_directories=" + c.dir,
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=200",
		"-c", "shared_buffers=32MB",
	}
	if c.timescale {
		args = append(args, "-c", "shared_preload_libraries=timescaledb", "-c", "timescaledb.telemetry_level=off")
	}
	cmd := exec.Command(filepath.Join(c.binDir, "postgres"), args...)
	cmd.Dir = c.dir
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// SIGQUIT: immediate shutdown of the server and its children if this process dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgbackend: starting postgres: %w", err)
	}
	c.cmd = cmd
	c.exited = make(chan struct{})
	exited := c.exited
	go func() { _ = cmd.Wait(); close(exited) }()

	for {
		conn, err := c.connect(ctx, superuser, c.superPW, "postgres")
		if err == nil {
			c.admin = conn
			return nil
		}
		select {
		case <-exited:
			c.cmd = nil
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("pgbackend: postgres exited at start-up:\n%s", tail(out, 2000))
		case <-ctx.Done():
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("pgbackend: postgres did not accept connections in time (%w): %w\n%s", ctx.Err(), err, tail(out, 2000))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stopServer stops the server (fast shutdown, then immediate, then kill) and waits for it.
func (c *Cluster) stopServer() {
	if c.cmd == nil {
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGKILL} {
		_ = c.cmd.Process.Signal(sig)
		select {
		case <-c.exited:
			c.cmd = nil
			return
		case <-time.After(5 * time.Second):
		}
	}
	<-c.exited
	c.cmd = nil
}

// Close stops the server and removes the cluster's directory. It may be called more than once.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.admin != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = c.admin.Close(ctx)
		cancel()
	}
	c.stopServer()
	err := os.RemoveAll(c.dir)
	c.logf("pgbackend: PostgreSQL on %s:%d stopped", c.host, c.port)
	return err
}

// Host is the address the server listens on (127.0.0.1).
func (c *Cluster) Host() string { return c.host }

// Port is the server's TCP port.
func (c *Cluster) Port() int { return c.port }

// StartupTime is how long Start took (initdb plus server start-up), and the initdb part of it.
func (c *Cluster) StartupTime() (total, initdb time.Duration) { return c.startup, c.initdb }

// TimescaleDB reports whether the timescaledb extension is available (and preloaded).
func (c *Cluster) TimescaleDB() bool { return c.timescale }

// connect opens a connection to the cluster over TCP.
func (c *Cluster) connect(ctx context.Context, user, password, database string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig("sslmode=disable")
	if err != nil {
		return nil, err
	}
	cfg.Host = c.host
	cfg.Port = uint16(c.port)
	cfg.User = user
	cfg.Password = password
	cfg.Database = database
	cfg.Fallbacks = nil
	cfg.TLSConfig = nil
	cfg.ConnectTimeout = 5 * time.Second
	return pgx.ConnectConfig(ctx, cfg)
}

// ConnString is a keyword/value connection string for a login to the cluster over TCP.
func (c *Cluster) ConnString(user, password, database string) string {
	q := func(s string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	return fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s sslmode=disable",
		c.host, c.port, q(user), q(password), q(database))
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func randomPassword() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func tail(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Names.

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,59}$`)

// checkID refuses ids that cannot safely name a role and a database.
func checkID(id string) error {
	if !idPattern.MatchString(id) || strings.HasPrefix(id, "pg_") || id == superuser ||
		strings.HasPrefix(id, "template") || strings.HasSuffix(id, roSuffix) {
		return fmt.Errorf("pgbackend: %q cannot name a service (want 1-60 lower-case letters, digits or _)", id)
	}
	return nil
}

// roSuffix ends the name of a service's read-only role.
const roSuffix = "_ro"

// ident quotes an identifier.
func ident(s string) string { return pgx.Identifier{s}.Sanitize() }

// literal quotes a string literal (standard_conforming_strings is on).
func literal(s string) (string, error) {
	if strings.ContainsRune(s, 0) {
		return "", errors.New("pgbackend: a password must not contain NUL")
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'", nil
}
