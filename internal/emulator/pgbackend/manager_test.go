package pgbackend

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCreateLogin: a new instance accepts tsdbadmin's password over TLS, and nothing else.
func TestCreateLogin(t *testing.T) {
	m := manager(t)
	id := newID()
	began := time.Now()
	in, note, err := m.Create(t.Context(), id, CreateOptions{Password: "pw-'quoted'\\-1", TimeSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Remove(id) })
	t.Logf("created in %v; note: %s", time.Since(began), note)
	c := mustConnect(t, in.Host(), in.Port(), "pw-'quoted'\\-1")
	if v := queryString(t, c, "SELECT current_user || '@' || current_database()"); v != "tsdbadmin@tsdb" {
		t.Errorf("logged in as %s", v)
	}
	if !m.Ready(t.Context(), id, "pw-'quoted'\\-1") || m.Ready(t.Context(), id, "wrong") {
		t.Error("Ready does not check the password")
	}
	if m.Extension("timescaledb") != (note == "") {
		t.Errorf("note %q with timescaledb installed: %v", note, m.Extension("timescaledb"))
	}
}

// helperEnv makes the test binary run killedHelper instead of the tests.
const helperEnv = "PGBACKEND_TEST_KILLED_HELPER"

// killedHelper starts a Manager with one instance and a pooler, prints the temporary directory,
// the postmaster's pid and PgBouncer's port, and waits to be killed.
func killedHelper() {
	m, err := Start(context.Background(), Options{})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	in, _, err := m.Create(context.Background(), "killed0001", CreateOptions{Password: "pw"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	poolerPort := 0
	if m.PgBouncer() {
		if poolerPort, err = m.EnablePooler("killed0001", "pw"); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
	}
	fmt.Println(m.dir, in.Pid(), in.Port(), poolerPort)
	select {}
}

// TestSIGKILLStopsAndRemovesEverything: when the process that runs the instances is killed outright,
// the servers and PgBouncer stop (parent-death signal) and the temporary directory is removed (the
// cleaner).
func TestSIGKILLStopsAndRemovesEverything(t *testing.T) {
	manager(t) // fails without the server binaries
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error:") {
		_ = cmd.Process.Kill()
		t.Fatalf("helper: %q %v", line, err)
	}
	var dir string
	var pid, port, poolerPort int
	if _, err := fmt.Sscan(line, &dir, &pid, &port, &poolerPort); err != nil {
		t.Fatalf("helper said %q: %v", line, err)
	}
	if conn, err := connect(t.Context(), "127.0.0.1", port, "pw"); err != nil {
		t.Fatalf("login to the helper's instance: %v", err)
	} else {
		_ = conn.Close(t.Context())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	eventually(t, "the postmaster gone", func() bool { return syscall.Kill(pid, 0) != nil })
	eventually(t, "the temporary directory and its lock removed", func() bool {
		_, err := os.Stat(dir)
		_, err2 := os.Stat(dir + lockSuffix)
		return os.IsNotExist(err) && os.IsNotExist(err2)
	})
	for _, p := range []int{port, poolerPort} {
		if p == 0 {
			continue
		}
		eventually(t, fmt.Sprintf("port %d closed", p), func() bool {
			c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err == nil {
				_ = c.Close()
			}
			return err != nil
		})
	}
}

// TestRemoveStaleRemovesOnlyOwnerlessDirectories: a temporary directory is removed only when its lock
// file can be locked (its Manager is gone), however old it is and whether or not a server runs
// there; a directory without a lock file (an older version's) is left alone, and a lone lock file
// that nobody holds is removed.
func TestRemoveStaleRemovesOnlyOwnerlessDirectories(t *testing.T) {
	parent := t.TempDir()
	old := time.Now().Add(-time.Hour)
	mk := func(name string, withLock bool) string {
		d := filepath.Join(parent, dirPrefix+name)
		if err := os.MkdirAll(filepath.Join(d, "i", "abc", "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		if withLock {
			if err := os.WriteFile(d+lockSuffix, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
		return d
	}
	gone := mk("gone", true)
	legacy := mk("legacy", false)
	live, lock, err := createOwned(parent) // held by this test, as by a live Manager
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Close() }()
	if err := os.Chtimes(live, old, old); err != nil {
		t.Fatal(err)
	}
	lone := filepath.Join(parent, dirPrefix+"lone"+lockSuffix)
	if err := os.WriteFile(lone, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	removeStale(parent)
	for _, p := range []string{gone, gone + lockSuffix, lone} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s of a gone owner was kept: %v", filepath.Base(p), err)
		}
	}
	for _, p := range []string{live, live + lockSuffix, legacy} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}

// TestTwoManagersPastTheStaleAge: two managers run at once, each older than the age after which
// earlier versions took an idle directory for stale (ten minutes: the directories are made an hour
// old), with no instance at that moment; starting another one and sweeping again removes neither's
// directory, and both keep creating instances that accept logins.
func TestTwoManagersPastTheStaleAge(t *testing.T) {
	manager(t) // fails without the server binaries
	start := func() *Manager {
		m, err := Start(t.Context(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Close() })
		return m
	}
	age := func(ms ...*Manager) {
		old := time.Now().Add(-time.Hour)
		for _, m := range ms {
			if err := os.Chtimes(m.dir, old, old); err != nil && !os.IsNotExist(err) { // removed: Create says so
				t.Fatal(err)
			}
		}
	}
	a := start()
	age(a)
	b := start() // sweeps at start
	for round := range 2 {
		age(a, b)
		removeStale("") // as a third emulator starting
		for _, m := range []*Manager{a, b} {
			id := newID()
			in, _, err := m.Create(t.Context(), id, CreateOptions{Password: "pw"})
			if err != nil {
				t.Fatalf("round %d: create in %s: %v", round, m.dir, err)
			}
			mustConnect(t, in.Host(), in.Port(), "pw")
			if err := m.Remove(id); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestStartWithoutHeaders: where the server headers are missing (a pg_config whose server include
// directory has no postgres.h; an empty build cache so that no earlier build hides it), Start fails
// with a *MissingError naming them and their apt-get command, and leaves no directory or lock.
func TestStartWithoutHeaders(t *testing.T) {
	m := manager(t) // fails without the server binaries
	out, err := exec.Command(filepath.Join(m.binDir, "pg_config"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	major := strings.Fields(string(out))[1]
	major, _, _ = strings.Cut(major, ".")
	empty := t.TempDir()
	fake := filepath.Join(t.TempDir(), "pg_config")
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --includedir-server ]; then echo '%s'; else exec '%s' \"$@\"; fi\n", empty, filepath.Join(m.binDir, "pg_config"))
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvPgConfig, fake)
	t.Setenv(EnvCacheDir, t.TempDir())
	parent := t.TempDir()
	_, err = Start(t.Context(), Options{TempDir: parent})
	var missing *MissingError
	if !errors.As(err, &missing) || !errors.Is(err, ErrNoExtension) {
		t.Fatalf("Start: %v, want a *MissingError", err)
	}
	if cmd := missing.Command(); cmd != "apt-get install -y postgresql-server-dev-"+major {
		t.Errorf("command %q; error: %v", cmd, err)
	}
	if !strings.Contains(err.Error(), "postgres.h in "+empty) {
		t.Errorf("error: %v", err)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
