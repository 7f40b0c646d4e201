package pgbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Instance is one PostgreSQL server: a service's, or a read replica set's (a hot standby).
type Instance struct {
	m       *Manager
	name    string
	dir     string // the instance's directory: data/, server.log (in Options.DataDir when kept)
	data    string
	sock    string // unix socket directory (in the temporary directory)
	standby bool

	reserved bool // by Reserve, not yet claimed by Create, Fork or Replica (guarded by m.mu)

	superPW atomic.Pointer[string] // the superuser's password (lockdown.go)

	mu     sync.Mutex   // one operation at a time
	port   atomic.Int32 // read without mu (Port, portTaken)
	cmd    *exec.Cmd
	exited chan struct{}
	pooler *pooler
}

// Name is the instance's name (a service or replica set id).
func (in *Instance) Name() string { return in.name }

// Host is the address the instance listens on.
func (in *Instance) Host() string { return "127.0.0.1" }

// Port is the instance's TCP port (kept across stop and start when it is still free).
func (in *Instance) Port() int {
	return int(in.port.Load())
}

// Running reports whether the server process runs.
func (in *Instance) Running() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.cmd != nil
}

// Pid is the postmaster's process id (0 when stopped).
func (in *Instance) Pid() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cmd == nil {
		return 0
	}
	return in.cmd.Process.Pid
}

// start starts the server (the caller holds in.mu, or owns in alone) and waits until it accepts
// local connections. With tcp false it listens on its socket only.
func (in *Instance) start(ctx context.Context, tcp bool) error {
	if in.cmd != nil {
		return nil
	}
	for attempt := 1; ; attempt++ {
		err := in.startOnce(ctx, tcp)
		if err == nil || !tcp || attempt == 3 || ctx.Err() != nil || !strings.Contains(err.Error(), "in use") {
			return err
		}
		in.m.logf("pgbackend: port %d of %s was taken meanwhile: trying another one", in.port.Load(), in.name)
		in.port.Store(0)
	}
}

func (in *Instance) startOnce(ctx context.Context, tcp bool) error {
	if in.port.Load() == 0 {
		p, err := freePort()
		if err != nil {
			return fmt.Errorf("pgbackend: choosing a port: %w", err)
		}
		in.port.Store(int32(p))
	}
	logPath := filepath.Join(in.dir, "server.log")
	if in.dir == "" {
		logPath = filepath.Join(in.m.dir, in.name+".log")
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	defer func() { _ = logFile.Close() }() // the child has its own descriptor
	listen := "127.0.0.1"
	if !tcp {
		listen = ""
	}
	args := []string{
		"-D", in.data,
		"-c", "listen_addresses=" + listen,
		"-c", "port=" + strconv.Itoa(in.Port()),
		"-c", "unix_socket_directories=" + in.sock,
		"-c", "ssl_cert_file=" + in.m.certFile,
		"-c", "ssl_key_file=" + in.m.keyFile,
		// The read-only enforcement (readonly.go), by its path of this run: a kept data
		// directory does not name a path of an earlier run.
		"-c", `session_preload_libraries="` + in.m.extension + `"`,
		// Who logs in how (lockdown.go), by the Manager's file: a kept data directory's own
		// pg_hba.conf may be an older emulator's.
		"-c", "hba_file=" + in.m.hbaFile,
	}
	args = append(args, logSettings(in.dir)...) // the server log as the service's log (logs.go)
	cmd := exec.Command(filepath.Join(in.m.binDir, "postgres"), args...)
	cmd.Dir = in.sock
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// SIGQUIT: immediate shutdown of the server and its children if this process dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: in.m.cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgbackend: starting postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	in.cmd, in.exited = cmd, exited
	err = untilReady(ctx, exited, func() error {
		conn, err := in.connectLocal(ctx, "template1")
		if err == nil {
			_ = conn.Close(ctx)
		}
		return err
	})
	switch {
	case errors.Is(err, errExited):
		in.cmd = nil
		out := startLog(logPath, in.dir)
		return fmt.Errorf("pgbackend: postgres %s exited at start-up:\n%s", in.name, tail(out, 1500))
	case err != nil:
		in.stop()
		out := startLog(logPath, in.dir)
		return fmt.Errorf("pgbackend: postgres %s did not accept connections in time (%w)\n%s", in.name, err, tail(out, 1500))
	}
	return nil
}

// errExited: the process that untilReady waited for ended.
var errExited = errors.New("the process exited")

// untilReady calls try every 10 ms until it answers nil, the process behind exited ends
// (errExited), or ctx is done (ctx's error); either error is joined with try's last answer.
func untilReady(ctx context.Context, exited <-chan struct{}, try func() error) error {
	for {
		err := try()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%w: %w", errExited, err)
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ctx.Err(), err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// stop stops the server (fast shutdown, then immediate, then kill) and waits for it (the caller
// holds in.mu).
func (in *Instance) stop() {
	stopProcess(in.cmd, in.exited, 10*time.Second, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGKILL)
	in.cmd = nil
}

// stopProcess sends the signals in turn, each given up to grace to end the process, until exited is
// closed (nothing to do when cmd is nil).
func stopProcess(cmd *exec.Cmd, exited <-chan struct{}, grace time.Duration, sigs ...syscall.Signal) {
	if cmd == nil {
		return
	}
	for _, sig := range sigs {
		_ = cmd.Process.Signal(sig)
		select {
		case <-exited:
			return
		case <-time.After(grace):
		}
	}
	<-exited
}

// connectLocal connects as the superuser over the unix socket, with the instance's superuser
// password.
func (in *Instance) connectLocal(ctx context.Context, database string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig("sslmode=disable")
	if err != nil {
		return nil, err
	}
	cfg.Host = in.sock
	cfg.Port = uint16(in.Port())
	cfg.User = superuser
	cfg.Password = in.superuserPassword()
	cfg.Database = database
	// What the emulator runs (a new superuser password among it) is not in pg_stat_activity, which
	// tsdbadmin reads (pg_read_all_stats); and it calls no function or operator of a schema that
	// tsdbadmin may write (it owns public): pg_catalog only, so that the names it uses are the
	// system's (lockdown.go).
	cfg.RuntimeParams["track_activities"] = "off"
	cfg.RuntimeParams["search_path"] = "pg_catalog"
	cfg.Fallbacks = nil
	cfg.TLSConfig = nil
	cfg.ConnectTimeout = 5 * time.Second
	return pgx.ConnectConfig(ctx, cfg)
}

// admin runs statements as the superuser in database.
func (in *Instance) admin(ctx context.Context, database string, stmts ...string) error {
	conn, err := in.connectLocal(ctx, database)
	if err != nil {
		return fmt.Errorf("pgbackend: %s: %w", in.name, err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("pgbackend: %s: %w", in.name, err)
		}
	}
	return nil
}

// Note texts: what is emulated rather than real.
const (
	NoteTimescaleEmulated = "timescaledb extension not installed on this machine: the time-series addon is emulated (plain PostgreSQL)"
	NoteVectorEmulated    = "vector extension not installed on this machine: the ai addon is emulated (plain PostgreSQL)"
)

// CreateOptions are the options of Create.
type CreateOptions struct {
	Password   string // tsdbadmin's password
	TimeSeries bool   // create the timescaledb extension in tsdb (when installed)
	AI         bool   // create the vector extension in tsdb (when installed)
}

// register adds a new instance under name; it fails if one exists.
func (m *Manager) register(name string, standby bool) (*Instance, error) {
	if err := checkID(name); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("pgbackend: closed")
	}
	if in, ok := m.instances[name]; ok {
		if in.reserved {
			in.reserved, in.standby = false, standby
			return in, nil
		}
		return nil, fmt.Errorf("pgbackend: instance %s exists", name)
	}
	dir := filepath.Join(m.dataDir, name)
	in := &Instance{m: m, name: name, dir: dir, data: filepath.Join(dir, "data"), sock: filepath.Join(m.dir, "s", name), standby: standby}
	m.instances[name] = in
	return in, nil
}

// portTaken reports whether another instance has that port (reserved ports are not bound yet).
func (m *Manager) portTaken(port int) bool {
	m.mu.Lock()
	var all []*Instance
	for _, in := range m.instances {
		all = append(all, in)
	}
	m.mu.Unlock()
	for _, in := range all {
		if in.Port() == port {
			return true
		}
	}
	return false
}

// Reserve chooses the port of the instance name before Create, Fork or Replica starts it, so that
// its endpoint can be answered at once. (Should the port be taken meanwhile, the instance starts
// on another one and says so in the log.)
func (m *Manager) Reserve(name string) (port int, err error) {
	in, err := m.register(name, false)
	if err != nil {
		return 0, err
	}
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			m.unregister(name)
			return 0, fmt.Errorf("pgbackend: choosing a port: %w", err)
		}
		if !m.portTaken(port) || attempt == 10 {
			in.port.Store(int32(port))
			break
		}
	}
	in.reserved = true
	return in.Port(), nil
}

func (m *Manager) unregister(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.instances, name)
}

// Instance answers the instance of that name (nil if none).
func (m *Manager) Instance(name string) *Instance {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.instances[name]
}

func (m *Manager) instance(name string) (*Instance, error) {
	if in := m.Instance(name); in != nil {
		return in, nil
	}
	return nil, fmt.Errorf("pgbackend: no instance %s", name)
}

// Create starts a service's instance: a copy of the template, or, when the data directory of that
// name exists (Options.DataDir kept it), that data again. tsdbadmin gets the password. It answers
// a note when an addon's extension is emulated.
func (m *Manager) Create(ctx context.Context, name string, opts CreateOptions) (in *Instance, note string, err error) {
	pw, err := literal(opts.Password)
	if err != nil {
		return nil, "", err
	}
	in, err = m.register(name, false)
	if err != nil {
		return nil, "", err
	}
	defer func() {
		if err != nil {
			m.unregister(name)
		}
	}()
	in.mu.Lock()
	defer in.mu.Unlock()
	fresh := true
	if _, err := os.Stat(filepath.Join(in.data, "PG_VERSION")); err == nil {
		fresh = false
		_ = os.Remove(filepath.Join(in.data, "postmaster.pid")) // left by a killed server
		if err := m.resetSuperuser(in); err != nil {
			return nil, "", err
		}
	} else {
		in.setSuperuserPassword(m.templatePW)
		if err := m.mkdir(in.dir); err != nil {
			return nil, "", err
		}
		if err := m.copyDir(ctx, m.template, in.data); err != nil {
			return nil, "", err
		}
	}
	if err := m.mkdir(in.sock); err != nil {
		return nil, "", err
	}
	if err := in.start(ctx, true); err != nil {
		return nil, "", err
	}
	stmts := []string{"ALTER ROLE " + AdminUser + " PASSWORD " + pw}
	var notes []string
	var superPW string
	if fresh { // a copy of the template has the template's superuser password: one of its own
		var stmt string
		stmt, superPW = newSuperuserPassword()
		stmts = append(stmts, stmt)
		for _, a := range []struct {
			on        bool
			ext, note string
		}{{opts.TimeSeries, "timescaledb", NoteTimescaleEmulated}, {opts.AI, "vector", NoteVectorEmulated}} {
			switch {
			case !a.on:
			case m.exts[a.ext]:
				stmts = append(stmts, "CREATE EXTENSION IF NOT EXISTS "+a.ext+" SCHEMA public")
			default:
				notes = append(notes, a.note)
			}
		}
	}
	if !fresh { // data kept by an older emulator
		if err := in.upgradeKept(ctx); err != nil {
			in.stop()
			return nil, "", err
		}
	}
	if err := in.admin(ctx, Database, stmts...); err != nil {
		in.stop()
		return nil, "", err
	}
	if fresh {
		in.setSuperuserPassword(superPW)
	}
	return in, strings.Join(notes, "; "), nil
}

// copyDir copies a data directory (cp keeps modes and owners; GNU cp shares the blocks where the
// file system can).
func (m *Manager) copyDir(ctx context.Context, src, dst string) error {
	args := []string{"-Rp", src, dst}
	if runtime.GOOS == "linux" {
		args = []string{"-a", "--reflink=auto", src, dst}
	}
	cmd := exec.CommandContext(ctx, "cp", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgbackend: copying the template: %w: %s", err, tail(out, 500))
	}
	return nil
}

// basebackup copies the running source instance into in.data with pg_basebackup; with standby
// the copy is set up to stream from the source (-R).
func (m *Manager) basebackup(ctx context.Context, src *Instance, in *Instance, standby bool) error {
	if err := m.mkdir(in.dir); err != nil {
		return err
	}
	_ = os.RemoveAll(in.data)
	srcPort := src.Port()
	args := []string{"-h", src.sock, "-p", strconv.Itoa(srcPort), "-U", superuser, "-D", in.data,
		"-X", "stream", "-c", "fast", "--no-sync", "-w"}
	if standby {
		args = append(args, "-R")
	}
	// A copy whose WAL was recycled under it (a busy machine) is made again, a few times at most.
	for attempt := 1; ; attempt++ {
		cmd := exec.CommandContext(ctx, filepath.Join(m.binDir, "pg_basebackup"), args...)
		cmd.Dir = in.dir
		// With -R the password goes into the standby's primary_conninfo.
		cmd.Env = append(childEnv(), "PGPASSWORD="+src.superuserPassword())
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: m.cred, Pdeathsig: syscall.SIGKILL}
		out, err := cmd.CombinedOutput()
		if err == nil {
			return nil
		}
		if attempt >= 3 || !bytes.Contains(out, []byte("has already been removed")) || ctx.Err() != nil {
			return fmt.Errorf("pgbackend: pg_basebackup of %s: %w\n%s", src.name, err, tail(out, 1500))
		}
		_ = os.RemoveAll(in.data)
	}
}

// Fork starts the instance name as a physical copy of the running instance src (roles,
// extensions, data: pg_basebackup at this moment); tsdbadmin gets password.
func (m *Manager) Fork(ctx context.Context, src, name, password string) (in *Instance, err error) {
	pw, err := literal(password)
	if err != nil {
		return nil, err
	}
	s, err := m.instance(src)
	if err != nil {
		return nil, err
	}
	in, err = m.register(name, false)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			m.unregister(name)
			_ = os.RemoveAll(in.dir)
		}
	}()
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := m.basebackup(ctx, s, in, false); err != nil {
		return nil, err
	}
	if err := m.mkdir(in.sock); err != nil {
		return nil, err
	}
	in.setSuperuserPassword(s.superuserPassword()) // the source's, until the copy has its own
	if err := in.start(ctx, true); err != nil {
		return nil, err
	}
	stmt, superPW := newSuperuserPassword()
	if err := in.admin(ctx, Database, "ALTER ROLE "+AdminUser+" PASSWORD "+pw, stmt); err != nil {
		in.stop()
		return nil, err
	}
	in.setSuperuserPassword(superPW)
	return in, nil
}

// Replica starts the instance name as a hot standby of the running instance primary, streaming
// from it (pg_basebackup -R). Its roles and passwords are the primary's, the superuser's too. When
// the data directory of that name exists (kept by Options.DataDir), that standby starts again and
// catches up.
func (m *Manager) Replica(ctx context.Context, primary, name string) (in *Instance, err error) {
	p, err := m.instance(primary)
	if err != nil {
		return nil, err
	}
	in, err = m.register(name, true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			m.unregister(name)
		}
	}()
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, err := os.Stat(filepath.Join(in.data, "standby.signal")); err == nil {
		_ = os.Remove(filepath.Join(in.data, "postmaster.pid"))
		// The primary's socket directory may have another name or port now.
		if err := m.setPrimary(in, p); err != nil {
			return nil, err
		}
	} else if err := m.basebackup(ctx, p, in, true); err != nil {
		return nil, err
	}
	if err := m.mkdir(in.sock); err != nil {
		return nil, err
	}
	in.setSuperuserPassword(p.superuserPassword())
	if err := in.start(ctx, true); err != nil {
		return nil, err
	}
	return in, nil
}

// setPrimary points a standby's primary_conninfo at the primary's socket and port, with its
// superuser password.
func (m *Manager) setPrimary(in, p *Instance) error {
	conf := fmt.Sprintf("primary_conninfo = 'user=%s password=%s host=%s port=%d'\n", superuser, p.superuserPassword(), p.sock, p.Port())
	return m.writeFile(filepath.Join(in.data, "postgresql.auto.conf"), []byte(conf))
}

// SetPassword changes tsdbadmin's password of a (primary) instance.
func (m *Manager) SetPassword(ctx context.Context, name, password string) error {
	pw, err := literal(password)
	if err != nil {
		return err
	}
	in, err := m.instance(name)
	if err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cmd == nil {
		return fmt.Errorf("pgbackend: instance %s is stopped", name)
	}
	if err := in.admin(ctx, Database, "ALTER ROLE "+AdminUser+" PASSWORD "+pw); err != nil {
		return err
	}
	if in.pooler != nil {
		return in.pooler.setPassword(password)
	}
	return nil
}

// Stop stops an instance (and its pooler): connections are refused until Start.
func (m *Manager) Stop(name string) error {
	in, err := m.instance(name)
	if err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.stopPooler()
	in.stop()
	return nil
}

// Start starts a stopped instance again on its port (if still free), with its data (and its
// pooler if it had one).
func (m *Manager) Start(ctx context.Context, name string) error {
	in, err := m.instance(name)
	if err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.start(ctx, true); err != nil {
		return err
	}
	if in.pooler != nil {
		return in.pooler.start()
	}
	return nil
}

// Remove stops an instance and removes its data.
func (m *Manager) Remove(name string) error {
	in := m.Instance(name)
	if in == nil {
		return nil
	}
	in.mu.Lock()
	in.stopPooler()
	in.pooler = nil
	in.stop()
	in.mu.Unlock()
	m.unregister(name)
	return errors.Join(os.RemoveAll(in.dir), os.RemoveAll(in.sock))
}

// Ready reports whether tsdbadmin can log in to tsdb over TLS with password.
func (m *Manager) Ready(ctx context.Context, name, password string) bool {
	in := m.Instance(name)
	if in == nil {
		return false
	}
	conn, err := pgx.ConnectConfig(ctx, ConnConfig(in.Host(), in.Port(), AdminUser, password, Database))
	if err != nil {
		return false
	}
	_ = conn.Close(ctx)
	return true
}

// Memory reports the resident memory of an instance's processes (the postmaster and its
// children): the sum of their RSS, and of their PSS (shared pages divided among their users).
func (m *Manager) Memory(name string) (rss, pss uint64, err error) {
	in, err := m.instance(name)
	if err != nil {
		return 0, 0, err
	}
	pid := in.Pid()
	if pid == 0 {
		return 0, 0, fmt.Errorf("pgbackend: instance %s is stopped", name)
	}
	return treeMemory(pid)
}

// treeMemory sums RSS and PSS over pid and its children (from /proc).
func treeMemory(pid int) (rss, pss uint64, err error) {
	pids := []int{pid}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if c, err := strconv.Atoi(filepath.Base(filepath.Dir(st))); err == nil {
				pids = append(pids, c)
			}
		}
	}
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			switch f[0] {
			case "Rss:":
				rss += kb * 1024
			case "Pss:":
				pss += kb * 1024
			}
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("pgbackend: no memory figures for pid %d", pid)
	}
	return rss, pss, nil
}
