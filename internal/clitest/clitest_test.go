package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// WaitForFile answers the URL once the emulator has written it, and gives up when the emulator exits
// first or the time is up, never reading an empty file.
func TestWaitForFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "emulator.url")
	running := make(chan struct{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = os.WriteFile(name, nil, 0o644) // not yet written: an empty file is no URL
		time.Sleep(100 * time.Millisecond)
		_ = os.WriteFile(name, []byte("http://127.0.0.1:1234/v1\n"), 0o644)
	}()
	got, err := WaitForFile(name, running, 10*time.Second)
	if err != nil || got != "http://127.0.0.1:1234/v1" {
		t.Fatalf("WaitForFile = %q, %v; want the URL", got, err)
	}

	exited := make(chan struct{})
	close(exited)
	t0 := time.Now()
	if _, err := WaitForFile(filepath.Join(dir, "none"), exited, 10*time.Second); err == nil || !strings.Contains(err.Error(), "exited") || time.Since(t0) > time.Second {
		t.Errorf("WaitForFile after the emulator exited: %v after %s; want an error at once", err, time.Since(t0))
	}
	if _, err := WaitForFile(filepath.Join(dir, "none"), running, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), "within") {
		t.Errorf("WaitForFile of a file never written: %v; want a timeout", err)
	}
}

// The CLI configuration names each build for both registries' addresses, and installs every other
// provider as usual.
func TestCLIConfig(t *testing.T) {
	name := filepath.Join(t.TempDir(), "dev.tfrc")
	if err := WriteCLIConfig(name, map[string]string{DBCloud: "/build/dbcloud", "timescale/timescale": "/cache/timescale"}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	want := `provider_installation {
  dev_overrides {
    "registry.terraform.io/dbcloud/dbcloud" = "/build/dbcloud"
    "registry.opentofu.org/dbcloud/dbcloud" = "/build/dbcloud"
    "registry.terraform.io/timescale/timescale" = "/cache/timescale"
    "registry.opentofu.org/timescale/timescale" = "/cache/timescale"
  }
  direct {}
}
`
	if string(raw) != want {
		t.Errorf("the CLI configuration:\n%s\nwant:\n%s", raw, want)
	}
}

// The emulator's command serves once StartEmulator answers, and Stop ends it; one that cannot serve
// fails the start with its log.
func TestStartEmulator(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "dbcloud-emulator")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/cmd/emulator").CombinedOutput(); err != nil {
		t.Fatalf("building the emulator: %v\n%s", err, out)
	}
	o := EmulatorOptions{Binary: bin, Dir: t.TempDir(), AccessKey: "K", SecretKey: "S", ProjectID: "clitest01", Postgres: "off", Timing: "instant"}
	e, err := StartEmulator(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.URL, "http://127.0.0.1:") || !strings.HasSuffix(e.URL, "/v1") {
		t.Errorf("URL %q", e.URL)
	}
	e.Stop()
	select {
	case <-e.done:
	default:
		t.Error("Stop returned before the emulator exited")
	}

	o.Dir, o.Timing = t.TempDir(), "never"
	if _, err := StartEmulator(o); err == nil || !strings.Contains(err.Error(), "exited before writing emulator.url") || !strings.Contains(err.Error(), "never") {
		t.Errorf("an emulator that cannot start: %v; want the exit and its log", err)
	}
}

// A Buffer takes writes from several goroutines at once (go test -race) and reads between them.
func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	b.WriteString("!")
	if s := b.String(); len(s) != 401 || !strings.HasSuffix(s, "!") {
		t.Errorf("%d bytes: %q", len(s), s)
	}
}
