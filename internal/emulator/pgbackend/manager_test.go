package pgbackend

import (
	"bufio"
	"context"
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
	eventually(t, "the temporary directory removed", func() bool {
		_, err := os.Stat(dir)
		return os.IsNotExist(err)
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

// TestRemoveStaleKeepsLiveDirectories: an old temporary directory is removed only when no server
// runs there (a postmaster.pid in any of the layouts, or a socket).
func TestRemoveStaleKeepsLiveDirectories(t *testing.T) {
	parent := t.TempDir()
	old := time.Now().Add(-time.Hour)
	mk := func(name string, files ...string) string {
		d := filepath.Join(parent, dirPrefix+name)
		for _, f := range append(files, "x") {
			p := filepath.Join(d, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
		return d
	}
	dead := mk("dead", "i/abc/data/PG_VERSION")
	single := mk("single", "data/postmaster.pid")
	instance := mk("instance", "i/abc/data/postmaster.pid")
	socket := mk("socket", "s/abc/.s.PGSQL.5432")
	removeStale(parent)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a stale directory was kept: %v", err)
	}
	for _, d := range []string{single, instance, socket} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("a live directory was removed: %v", err)
		}
	}
}
