package pagetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitForFile answers the URL once the emulator has written it, and gives up when the emulator exits
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
	got, err := waitForFile(name, running, 10*time.Second)
	if err != nil || got != "http://127.0.0.1:1234/v1" {
		t.Fatalf("waitForFile = %q, %v; want the URL", got, err)
	}

	exited := make(chan struct{})
	close(exited)
	t0 := time.Now()
	if _, err := waitForFile(filepath.Join(dir, "none"), exited, 10*time.Second); err == nil || !strings.Contains(err.Error(), "exited") || time.Since(t0) > time.Second {
		t.Errorf("waitForFile after the emulator exited: %v after %s; want an error at once", err, time.Since(t0))
	}
	if _, err := waitForFile(filepath.Join(dir, "none"), running, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), "within") {
		t.Errorf("waitForFile of a file never written: %v; want a timeout", err)
	}
}
