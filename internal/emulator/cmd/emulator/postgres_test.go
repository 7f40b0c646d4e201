package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/clitest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
)

func TestParsePostgresFlags(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		mode, dir string
		wantUsage bool
	}{
		{nil, "auto", "", false},
		{[]string{"-postgres", "off"}, "off", "", false},
		{[]string{"-postgres", "on", "-postgres-bindir", "/opt/pg/bin"}, "on", "/opt/pg/bin", false},
		{[]string{"-postgres", "yes"}, "", "", true},
	} {
		var stderr strings.Builder
		c, err := parseFlags(tt.args, &stderr)
		if tt.wantUsage {
			if !errors.Is(err, errUsage) || stderr.Len() == 0 {
				t.Errorf("%q: err = %v, stderr %q", tt.args, err, stderr.String())
			}
			continue
		}
		if err != nil || c.postgres != tt.mode || c.postgresBinDir != tt.dir {
			t.Errorf("%q: postgres %q, bindir %q, err %v", tt.args, c.postgres, c.postgresBinDir, err)
		}
	}
}

// A -postgres-bindir without the server binaries is an error, even with auto.
func TestRunBadPostgresBinDir(t *testing.T) {
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-postgres-bindir", t.TempDir()}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "initdb") {
		t.Errorf("err = %v", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q", stdout.String())
	}
}

// TestStateFileKeepsData: with -state FILE and -postgres on, the services' data directories live in
// FILE.pgdata; an emulator started again from the file serves the same data with the same
// password, and deleting the service removes its data.
func TestStateFileKeepsData(t *testing.T) {
	if _, err := pgbackend.FindBinDir(""); err != nil {
		t.Fatalf("this test needs the PostgreSQL server binaries (CI installs them): %v", err)
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	// Running as root, the servers run as the postgres user: it must reach the data directory.
	for _, d := range []string{filepath.Dir(dir), filepath.Dir(filepath.Dir(dir))} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "state.json")
	url, stop := startRun(t, "-state", path, "-postgres", "on", "-timing", "fast")
	services := url + "/projects/p1/services"
	var created struct {
		ServiceID       string `json:"service_id"`
		InitialPassword string `json:"initial_password"`
	}
	if code := call(t, http.MethodPost, services, map[string]any{"name": "kept"}, &created); code != http.StatusAccepted {
		t.Fatalf("create: %d", code)
	}
	type record struct {
		Status   string `json:"status"`
		Endpoint struct {
			Host string `json:"host"`
			Port int    `json:"port"`
		} `json:"endpoint"`
	}
	ready := func() record {
		t.Helper()
		var s record
		waitUntil(t, "READY", func() bool {
			call(t, http.MethodGet, services+"/"+created.ServiceID, nil, &s)
			return s.Status == "READY"
		})
		return s
	}
	began := time.Now()
	s := ready()
	t.Logf("READY %v after the create call", time.Since(began).Round(time.Millisecond))
	conn, err := pgx.ConnectConfig(t.Context(), pgbackend.ConnConfig(s.Endpoint.Host, s.Endpoint.Port, "tsdbadmin", created.InitialPassword, "tsdb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE notes AS SELECT 'kept across restarts'::text AS v"); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close(t.Context())
	began = time.Now()
	stop()
	t.Logf("stopped in %v", time.Since(began).Round(time.Millisecond))
	if _, err := os.Stat(filepath.Join(path+".pgdata", created.ServiceID, "data", "PG_VERSION")); err != nil {
		t.Fatalf("the service's data directory beside the state file: %v", err)
	}

	url, stop = startRun(t, "-state", path, "-postgres", "on", "-timing", "fast")
	defer stop()
	services = url + "/projects/p1/services"
	began = time.Now()
	s = ready()
	var v string
	waitUntil(t, "the restored service's row", func() bool {
		conn, err := pgx.ConnectConfig(t.Context(), pgbackend.ConnConfig(s.Endpoint.Host, s.Endpoint.Port, "tsdbadmin", created.InitialPassword, "tsdb"))
		if err != nil {
			return false
		}
		defer func() { _ = conn.Close(t.Context()) }()
		return conn.QueryRow(t.Context(), "SELECT v FROM notes").Scan(&v) == nil
	})
	t.Logf("restarted and restored in %v", time.Since(began).Round(time.Millisecond))
	if v != "kept across restarts" {
		t.Errorf("row after the restart: %q", v)
	}
	if code := call(t, http.MethodDelete, services+"/"+created.ServiceID, nil, nil); code != http.StatusAccepted {
		t.Fatalf("delete: %d", code)
	}
	waitUntil(t, "the service gone", func() bool {
		return call(t, http.MethodGet, services+"/"+created.ServiceID, nil, nil) == http.StatusNotFound
	})
	if _, err := os.Stat(filepath.Join(path+".pgdata", created.ServiceID)); !os.IsNotExist(err) {
		t.Errorf("the deleted service's data directory: %v", err)
	}
}

// waitUntil waits until cond holds (at most two minutes: the CI machine is shared and busy).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after two minutes", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPostgresAutoWithoutHeaders: where the read-only extension cannot be built (a pg_config whose
// server include directory has no postgres.h, and an empty build cache, so that no earlier build
// hides it), -postgres auto serves the services as records only and says so in one line that names
// what is missing and the command that adds it; -postgres on fails at start with that line.
func TestPostgresAutoWithoutHeaders(t *testing.T) {
	binDir, err := pgbackend.FindBinDir("")
	if err != nil {
		t.Fatalf("this test needs the PostgreSQL server binaries (CI installs them): %v", err)
	}
	out, err := exec.Command(filepath.Join(binDir, "pg_config"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	major := regexp.MustCompile(`PostgreSQL (\d+)`).FindStringSubmatch(string(out))
	if major == nil {
		t.Fatalf("pg_config --version: %q", out)
	}
	empty := t.TempDir()
	fake := filepath.Join(t.TempDir(), "pg_config")
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --includedir-server ]; then echo '%s'; else exec '%s' \"$@\"; fi\n", empty, filepath.Join(binDir, "pg_config"))
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(pgbackend.EnvPgConfig, fake)
	t.Setenv(pgbackend.EnvCacheDir, t.TempDir())
	want := "missing PostgreSQL " + major[1] + "'s server headers (postgres.h in " + empty + "); add it with: apt-get install -y postgresql-server-dev-" + major[1]

	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr clitest.Buffer
	done := make(chan error, 1)
	began := time.Now()
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-access-key", "K", "-secret-key", "S", "-postgres", "auto", "-timing", "instant"}, pw, &stderr)
		_ = pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("-postgres auto did not serve: %v (stderr %s)", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	t.Logf("serving after %v", time.Since(began).Round(time.Millisecond))
	services := strings.TrimSpace(line) + "/projects/p1/services"
	var created struct {
		ServiceID string `json:"service_id"`
	}
	if code := call(t, http.MethodPost, services, map[string]any{"name": "records"}, &created); code != http.StatusAccepted {
		t.Fatalf("create: %d", code)
	}
	waitUntil(t, "READY", func() bool {
		var s struct{ Status string }
		call(t, http.MethodGet, services+"/"+created.ServiceID, nil, &s)
		return s.Status == "READY"
	})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	var said []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "records only") {
			said = append(said, l)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], want) {
		t.Fatalf("-postgres auto said %q, want one line with %q; stderr:\n%s", said, want, stderr.String())
	}

	var stdout, onStderr strings.Builder
	onCtx, onCancel := context.WithTimeout(t.Context(), time.Minute) // bounds a run that serves
	defer onCancel()
	err = run(onCtx, []string{"-addr", "127.0.0.1:0", "-postgres", "on"}, &stdout, &onStderr)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("-postgres on: err = %v, want %q", err, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("-postgres on served: %q", stdout.String())
	}
}
