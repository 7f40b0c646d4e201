package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

func TestParseFlags(t *testing.T) {
	t.Setenv(envToken, "")
	fast := emulator.FastTiming()
	fastQueued1s := fast
	fastQueued1s.ServiceQueued = time.Second
	fastAccept0 := fast
	fastAccept0.PeeringAccepting = 0

	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, c config)
		wantErr error
	}{
		{"defaults", nil, func(t *testing.T, c config) {
			if c.addr != "127.0.0.1:8080" || c.opts.Timing != emulator.DemoTiming() || c.log || c.opts.Projects != nil {
				t.Errorf("config = %+v", c)
			}
			if c.opts.Faults != (emulator.Faults{RetryAfter: time.Second, Seed: 1}) {
				t.Errorf("faults = %+v", c.opts.Faults)
			}
		}, nil},
		{"keys and projects", []string{"-addr", "127.0.0.1:0", "-access-key", "K", "-secret-key", "S", "-projects", "p1, p2,,", "-log"}, func(t *testing.T, c config) {
			if c.addr != "127.0.0.1:0" || c.opts.AccessKey != "K" || c.opts.SecretKey != "S" || !c.log || !slices.Equal(c.opts.Projects, []string{"p1", "p2"}) {
				t.Errorf("config = %+v", c)
			}
		}, nil},
		{"tokens", []string{"-token", "t1, t2,"}, func(t *testing.T, c config) {
			if !slices.Equal(c.opts.BearerTokens, []string{"t1", "t2"}) {
				t.Errorf("tokens = %q", c.opts.BearerTokens)
			}
		}, nil},
		{"fast preset", []string{"-timing", "fast"}, func(t *testing.T, c config) {
			if c.opts.Timing != fast {
				t.Errorf("timing = %+v", c.opts.Timing)
			}
		}, nil},
		{"instant preset", []string{"-timing", "instant"}, func(t *testing.T, c config) {
			if c.opts.Timing != (emulator.Timing{}) {
				t.Errorf("timing = %+v", c.opts.Timing)
			}
		}, nil},
		{"override after preset", []string{"-timing", "fast", "-service-queued", "1s"}, func(t *testing.T, c config) {
			if c.opts.Timing != fastQueued1s {
				t.Errorf("timing = %+v", c.opts.Timing)
			}
		}, nil},
		{"override to zero", []string{"-peering-accepting", "0s", "-timing", "fast"}, func(t *testing.T, c config) {
			if c.opts.Timing != fastAccept0 {
				t.Errorf("timing = %+v", c.opts.Timing)
			}
		}, nil},
		{"faults", []string{"-rate-limit", "0.1", "-retry-after", "3s", "-server-error", "0.2", "-unavailable", "0.3", "-latency", "50ms", "-commit-then-fail", "0.4", "-drop", "-seed", "9"}, func(t *testing.T, c config) {
			want := emulator.Faults{RateLimit: 0.1, RetryAfter: 3 * time.Second, ServerError: 0.2, Unavailable: 0.3, Latency: 50 * time.Millisecond, CommitThenFail: 0.4, DropConnection: true, Seed: 9}
			if c.opts.Faults != want {
				t.Errorf("faults = %+v, want %+v", c.opts.Faults, want)
			}
		}, nil},
		{"bad preset", []string{"-timing", "slow"}, nil, errUsage},
		{"bad probability", []string{"-rate-limit", "1.5"}, nil, errUsage},
		{"negative duration", []string{"-service-deleting", "-1s"}, nil, errUsage},
		{"unknown flag", []string{"-nope"}, nil, errUsage},
		{"stray argument", []string{"extra"}, nil, errUsage},
		{"help", []string{"-h"}, nil, flag.ErrHelp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			c, err := parseFlags(tt.args, &stderr)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if stderr.Len() == 0 {
					t.Error("nothing written to stderr")
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v; stderr %s", err, stderr.String())
			}
			tt.check(t, c)
		})
	}
}

func TestBaseURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080/v1",
		"0.0.0.0:81":     "http://127.0.0.1:81/v1",
		"[::]:82":        "http://127.0.0.1:82/v1",
		"[::1]:83":       "http://[::1]:83/v1",
	} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := baseURL(tcp); got != want {
			t.Errorf("baseURL(%s) = %s, want %s", addr, got, want)
		}
	}
}

// TestRun starts the command on a free port, talks to it and stops it.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-access-key", "K", "-secret-key", "S", "-timing", "fast"}, pw, &stderr)
		_ = pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr %s)", err, stderr.String())
	}
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") || strings.HasSuffix(url, ":0/v1") {
		t.Fatalf("first line = %q", line)
	}

	req, err := http.NewRequest(http.MethodGet, url+"/projects/p1/services", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("K", "S")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("list services: %d %s", resp.StatusCode, body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestRunListenError(t *testing.T) {
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"-addr", "256.0.0.1:1"}, &stdout, &stderr)
	if err == nil || stdout.Len() != 0 {
		t.Errorf("err = %v, stdout %q", err, stdout.String())
	}
}

// The emulator accepts the tokens of -token, or of DBCLOUD_EMULATOR_TOKEN when the flag is not given,
// and answers any other token with the API's 401 error body.
func TestRunTokens(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		env  string
	}{
		"flag":                  {args: []string{"-token", "flag-token"}},
		"environment":           {env: "env-token"},
		"flag over environment": {args: []string{"-token", "flag-token"}, env: "env-token"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(envToken, tc.env)
			good, other := "env-token", "flag-token"
			if len(tc.args) > 0 {
				good, other = "flag-token", "env-token"
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			pr, pw := io.Pipe()
			var stderr strings.Builder
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-access-key", "K", "-secret-key", "S", "-timing", "instant", "-postgres", "off"}, tc.args...), pw, &stderr)
				_ = pw.Close()
			}()
			line, err := bufio.NewReader(pr).ReadString('\n')
			if err != nil {
				t.Fatalf("reading the URL: %v (stderr %s)", err, stderr.String())
			}
			url := strings.TrimSpace(line)
			get := func(token string) (int, http.Header, string) {
				req, err := http.NewRequest(http.MethodGet, url+"/auth/info", nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				return resp.StatusCode, resp.Header, string(body)
			}
			if code, _, body := get(good); code != http.StatusOK || !strings.Contains(body, `"type":"oauth"`) {
				t.Errorf("auth info with the configured token: %d %s", code, body)
			}
			for _, bad := range []string{"other-token", other} {
				code, hdr, body := get(bad)
				if code != http.StatusUnauthorized || !strings.Contains(body, `"code":"UNAUTHORIZED"`) || !strings.Contains(hdr.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("auth info with token %q: %d %q %s, want the API's 401", bad, code, hdr.Get("WWW-Authenticate"), body)
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
		})
	}
}

// -url-file: the URL of an earlier run is gone before the emulator listens, the new one is written
// whole once it serves (the same as the first line on stdout), and the file goes when it stops.
func TestRunURLFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "emulator.url")
	const stale = "http://127.0.0.1:1/v1\n"
	if err := os.WriteFile(file, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	// An emulator that cannot listen removes the stale URL and writes none.
	var stdout, stderr strings.Builder
	if err := run(t.Context(), []string{"-addr", "256.0.0.1:1", "-url-file", file}, &stdout, &stderr); err == nil {
		t.Fatal("run with a bad -addr: no error")
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after a failed start the URL file is still there (%v): a caller would read the stale URL", err)
	}

	if err := os.WriteFile(file, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-timing", "instant", "-postgres", "off", "-url-file", file}, pw, &stderr)
		_ = pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr %s)", err, stderr.String())
	}
	var got []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if got, err = os.ReadFile(file); err == nil && string(got) != stale {
			break
		}
	}
	if string(got) != line {
		t.Fatalf("URL file = %q, want the first line on stdout %q", got, line)
	}
	resp, err := http.Get(strings.TrimSpace(string(got)) + "/projects/p1/services")
	if err != nil {
		t.Fatalf("the emulator does not serve at the URL of the file: %v", err)
	}
	_ = resp.Body.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %v, want only the URL file (no temporary file left)", entries)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the emulator stopped, the URL file is still there (%v)", err)
	}
}

// TestShippedBinaryLinksNoTestHooks builds the command as the release does (but keeping its symbol
// table) and fails when it depends on package emulatortest (the tests' hooks and their direct access
// to the state) or links any of it, or links the emulator's door to its state (Edit, State, Object),
// which only emulatortest and tests open: the one extension point the binary carries is
// Options.Intercept, left nil.
func TestShippedBinaryLinksNoTestHooks(t *testing.T) {
	t.Parallel()
	const testPkg = "github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	deps, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if slices.Contains(strings.Fields(string(deps)), testPkg) {
		t.Errorf("the emulator command depends on %s", testPkg)
	}
	bin := filepath.Join(t.TempDir(), "dbcloud-emulator")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	nm, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	hooks := []string{testPkg + ".", "/internal/emulator.(*store).Edit", "/internal/emulator.State.", "/internal/emulator.Object[",
		"SetInterceptor", "HoldAnswer", "ResetInterceptCount", "SetServiceStatus", "FinishServiceIn", "UpdateService"}
	var linked []string
	for line := range strings.Lines(string(nm)) {
		for _, h := range hooks {
			if strings.Contains(line, h) {
				linked = append(linked, strings.TrimSpace(line))
				break
			}
		}
	}
	if len(linked) > 0 {
		t.Errorf("the emulator binary links test hooks:\n%s", strings.Join(linked, "\n"))
	}
	if !strings.Contains(string(nm), "/internal/emulator.(*Exchange).Serve") {
		t.Error("no symbol of the emulator's fault stage (Exchange.Serve) found: is the symbol table read?")
	}
}
