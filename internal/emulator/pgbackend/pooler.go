package pgbackend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pooler is a PgBouncer in front of an instance: TLS required from clients, tsdbadmin with the
// instance's password (kept in its auth_file), every other login role of the database with its own
// (PgBouncer asks the instance through timescale_functions.pooler_auth, as its auth user
// tsdb_pooler_auth over the private socket, the only role that may call it: a role that may log in
// now, not expired), the instance reached over its unix socket. Database tsdb pools in
// session mode, tsdb_transaction in transaction mode.
type pooler struct {
	in *Instance
	// authPassword is poolerAuthUser's in the auth_file (random).
	authPassword string
	dir          string
	port         int
	cmd          *exec.Cmd
	exited       chan struct{}
}

// EnablePooler starts a PgBouncer in front of the running instance name (tsdbadmin logs in with
// password) and answers its port; an enabled pooler answers its port again. ErrNoPgBouncer when
// pgbouncer is not installed.
func (m *Manager) EnablePooler(name, password string) (int, error) {
	if m.pgbouncer == "" {
		return 0, ErrNoPgBouncer
	}
	in, err := m.instance(name)
	if err != nil {
		return 0, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.pooler != nil {
		return in.pooler.port, nil
	}
	p := &pooler{in: in, dir: filepath.Join(m.dir, "s", name+".pgbouncer")}
	if err := m.mkdir(p.dir); err != nil {
		return 0, err
	}
	if err := p.setPassword(password); err != nil {
		return 0, err
	}
	if err := p.start(); err != nil {
		return 0, err
	}
	in.pooler = p
	return p.port, nil
}

// DisablePooler stops the instance's PgBouncer (if any).
func (m *Manager) DisablePooler(name string) error {
	in, err := m.instance(name)
	if err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.stopPooler()
	if in.pooler != nil {
		_ = os.RemoveAll(in.pooler.dir)
	}
	in.pooler = nil
	return nil
}

// PoolerPort is the port of the instance's PgBouncer (0 if none runs).
func (m *Manager) PoolerPort(name string) int {
	in := m.Instance(name)
	if in == nil {
		return 0
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.pooler == nil || in.pooler.cmd == nil {
		return 0
	}
	return in.pooler.port
}

// stopPooler stops the PgBouncer process but keeps its settings, so that start runs it again (the
// caller holds in.mu).
func (in *Instance) stopPooler() {
	if in.pooler != nil {
		in.pooler.stop()
	}
}

// setPassword writes the auth_file and makes a running PgBouncer read it again.
func (p *pooler) setPassword(password string) error {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	if p.authPassword == "" { // the auth user's, for PgBouncer's clients only (never needed by PgBouncer)
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		p.authPassword = hex.EncodeToString(b)
	}
	list := q(AdminUser) + " " + q(password) + "\n" + q(poolerAuthUser) + " " + q(p.authPassword) + "\n"
	if err := p.in.m.writeFile(filepath.Join(p.dir, "userlist.txt"), []byte(list)); err != nil {
		return err
	}
	if p.cmd == nil {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	return p.waitForPassword(password)
}

// waitForPassword waits until a running PgBouncer takes tsdbadmin's password: it re-reads its
// auth_file on SIGHUP in its own time, and a password change is in force when the call answers. Taken
// means a login with it is not refused for its password (the server behind PgBouncer, a standby
// starting up for instance, may still refuse the session).
func (p *pooler) waitForPassword(password string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := untilReady(ctx, p.exited, func() error {
		c, err := pgx.ConnectConfig(ctx, ConnConfig("127.0.0.1", p.port, AdminUser, password, Database))
		if err == nil {
			return c.Close(ctx)
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && !strings.Contains(pgErr.Message, "authentication failed") {
			return nil
		}
		return err
	})
	switch {
	case errors.Is(err, errExited):
		return fmt.Errorf("pgbackend: pgbouncer on port %d exited after a reload: %w", p.port, err)
	case err != nil:
		out, _ := os.ReadFile(filepath.Join(p.dir, "pgbouncer.log"))
		return fmt.Errorf("pgbackend: pgbouncer on port %d did not take the new password: %w\n%s", p.port, err, tail(out, 1500))
	}
	return nil
}

func (p *pooler) config() string {
	in := p.in
	server := fmt.Sprintf("host=%s port=%d dbname=%s", in.sock, in.Port(), Database)
	return fmt.Sprintf(`[databases]
%s = %s pool_mode=session
%s_transaction = %s pool_mode=transaction

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = scram-sha-256
auth_file = %s
auth_user = %s
auth_query = SELECT usename, passwd FROM timescale_functions.pooler_auth($1)
pool_mode = session
max_client_conn = 100
default_pool_size = 10
server_tls_sslmode = disable
client_tls_sslmode = require
client_tls_cert_file = %s
client_tls_key_file = %s
ignore_startup_parameters = extra_float_digits
log_connections = 0
log_disconnections = 0
`, Database, server, Database, server, p.port, filepath.Join(p.dir, "userlist.txt"), poolerAuthUser, in.m.certFile, in.m.keyFile)
}

// start runs PgBouncer and waits until it accepts TCP connections.
func (p *pooler) start() error {
	if p.cmd != nil {
		return nil
	}
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		if p.port == 0 || attempt > 0 {
			port, err := freePort()
			if err != nil {
				return fmt.Errorf("pgbackend: choosing a port: %w", err)
			}
			p.port = port
		}
		if last = p.startOnce(); last == nil {
			return nil
		}
	}
	return last
}

func (p *pooler) startOnce() error {
	m := p.in.m
	ini := filepath.Join(p.dir, "pgbouncer.ini")
	if err := m.writeFile(ini, []byte(p.config())); err != nil {
		return err
	}
	logPath := filepath.Join(p.dir, "pgbouncer.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	defer func() { _ = logFile.Close() }()
	cmd := exec.Command(m.pgbouncer, ini)
	cmd.Dir = p.dir
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: m.cred, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgbackend: starting pgbouncer: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.cmd, p.exited = cmd, exited
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port))
	err = untilReady(ctx, exited, func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err
	})
	switch {
	case errors.Is(err, errExited):
		p.cmd = nil
		out, _ := os.ReadFile(logPath)
		return fmt.Errorf("pgbackend: pgbouncer exited at start-up:\n%s", tail(out, 1500))
	case err != nil:
		p.stop()
		return fmt.Errorf("pgbackend: pgbouncer did not listen on %s in time", addr)
	}
	return nil
}

// stop stops PgBouncer (SIGTERM: immediate shutdown, then SIGKILL) and waits for it.
func (p *pooler) stop() {
	stopProcess(p.cmd, p.exited, 5*time.Second, syscall.SIGTERM, syscall.SIGKILL)
	p.cmd = nil
}

// SetPoolerPassword gives the PgBouncer in front of instance name (if any) a new password for
// tsdbadmin (a replica set's pooler after the primary's password changed).
func (m *Manager) SetPoolerPassword(name, password string) error {
	in := m.Instance(name)
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.pooler == nil {
		return nil
	}
	return in.pooler.setPassword(password)
}
