package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/clitest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// startRun runs the command with args and answers its base URL and a function that stops it.
func startRun(t *testing.T, args ...string) (url string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr clitest.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-access-key", "K", "-secret-key", "S", "-postgres", "off"}, args...), pw, &stderr)
		_ = pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("reading the URL: %v (stderr %s)", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return strings.TrimSpace(line), func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v (stderr %s)", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("run did not return after cancel")
		}
	}
}

func call(t *testing.T, method, url string, in, out any) int {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("K", "S")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v (%s)", method, url, err, b)
		}
	}
	return resp.StatusCode
}

// TestStateFile: start with -state, create a service and a VPC, stop; start again: they are there.
func TestStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	url, stop := startRun(t, "-state", path, "-timing", "fast", "-speed", "10")
	services := url + "/projects/p1/services"
	var created struct {
		ServiceID       string `json:"service_id"`
		InitialPassword string `json:"initial_password"`
		Status          string `json:"status"`
	}
	if code := call(t, http.MethodPost, services, map[string]any{"name": "kept"}, &created); code != http.StatusAccepted {
		t.Fatalf("create: %d", code)
	}
	var vpc struct {
		ID string `json:"id"`
	}
	if code := call(t, http.MethodPost, url+"/projects/p1/vpcs", map[string]any{"name": "v", "cidr": "10.0.0.0/16", "region_code": "us-east-1"}, &vpc); code != http.StatusCreated {
		t.Fatalf("create vpc: %d", code)
	}
	stop() // while the service is still being created (-speed 10: 1s phases)

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v, want 0600 (it holds passwords)", fi.Mode().Perm())
	}

	url, stop = startRun(t, "-state", path, "-timing", "instant")
	defer stop()
	var got struct {
		ServiceID string `json:"service_id"`
		Name      string `json:"name"`
		Status    string `json:"status"`
	}
	if code := call(t, http.MethodGet, url+"/projects/p1/services/"+created.ServiceID, nil, &got); code != http.StatusOK {
		t.Fatalf("get after restart: %d", code)
	}
	if got.Name != "kept" || got.Status != "READY" {
		t.Errorf("service after restart = %+v, want kept READY (the creation under way is finished)", got)
	}
	if code := call(t, http.MethodGet, url+"/projects/p1/vpcs/"+vpc.ID, nil, nil); code != http.StatusOK {
		t.Errorf("get vpc after restart: %d", code)
	}

	// A change after the restart reaches the file (debounced), and a delete too.
	if code := call(t, http.MethodDelete, url+"/projects/p1/services/"+created.ServiceID, nil, nil); code != http.StatusAccepted {
		t.Fatalf("delete: %d", code)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap, ok, err := emulator.LoadState(path)
		if err != nil || !ok {
			t.Fatalf("load: %v %v", ok, err)
		}
		if ps := snap.Projects["p1"]; ps != nil && len(ps.Services) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delete never reached the state file: %+v", snap.Projects["p1"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStateFileBroken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-postgres", "off", "-state", path}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want one naming %s", err, path)
	}
}

func TestSpeed(t *testing.T) {
	var stderr strings.Builder
	c, err := parseFlags([]string{"-timing", "demo", "-speed", "0.1", "-service-queued", "10s"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	demo := emulator.DemoTiming()
	if c.opts.Timing.ServiceConfiguring != demo.ServiceConfiguring/10 || c.opts.Timing.PeeringAccepting != demo.PeeringAccepting/10 {
		t.Errorf("timing = %+v, want the demo timing ten times faster", c.opts.Timing)
	}
	if c.opts.Timing.ServiceQueued != time.Second {
		t.Errorf("service-queued = %v, want 10s scaled to 1s", c.opts.Timing.ServiceQueued)
	}
	c, err = parseFlags([]string{"-timing", "fast", "-speed", "10"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if c.opts.Timing.ServiceConfiguring != 10*emulator.FastTiming().ServiceConfiguring {
		t.Errorf("timing = %+v", c.opts.Timing)
	}
	for _, bad := range []string{"-1", "NaN", "x"} {
		if _, err := parseFlags([]string{"-speed", bad}, &stderr); err == nil {
			t.Errorf("-speed %s accepted", bad)
		}
	}
}
