package pagetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The API emulator of a page: started with -url-file, stopped at the end of the page.

// emulatorStartTimeout bounds the wait for the emulator's URL (initdb of the PostgreSQL template on a
// loaded machine takes a while).
const emulatorStartTimeout = 2 * time.Minute

// startEmulator starts the page's emulator on a free loopback port and answers its base URL, which
// the emulator writes to a file (-url-file) once it serves.
func (r *pageRun) startEmulator() (string, error) {
	pg := r.cfg.Postgres
	if v := r.page.Options["postgres"]; v != "" {
		pg = v
	}
	if pg == "" {
		pg = "auto"
	}
	urlFile := filepath.Join(r.root, "emulator.url")
	logName := filepath.Join(r.root, "emulator.log")
	cmd := exec.Command(r.cfg.Emulator, "-addr", "127.0.0.1:0", "-access-key", accessKey, "-secret-key", secretKey,
		"-projects", projectID, "-timing", "fast", "-postgres", pg, "-url-file", urlFile)
	// Its own process group (a block's leftovers are looked for by group), and
	// stopped with the runner, also when the runner is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	logf, err := os.Create(logName)
	if err != nil {
		return "", err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return "", fmt.Errorf("emulator: %w", err)
	}
	r.emu, r.emuDone = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		_ = logf.Close()
		close(r.emuDone)
	}()
	url, err := waitForFile(urlFile, r.emuDone, emulatorStartTimeout)
	if err != nil {
		return "", fmt.Errorf("the emulator did not start: %w: %s", err, readTail(logName))
	}
	return url, nil
}

// waitForFile answers the first line of the file name once it is there and not empty, polling until
// timeout; it gives up at once when exited is closed (the process that writes it is gone).
func waitForFile(name string, exited <-chan struct{}, timeout time.Duration) (string, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for {
		if b, err := os.ReadFile(name); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return firstLine(strings.TrimSpace(string(b))), nil
		}
		select {
		case <-exited:
			return "", fmt.Errorf("it exited before writing %s", filepath.Base(name))
		case <-deadline:
			return "", fmt.Errorf("no %s within %s", filepath.Base(name), timeout)
		case <-tick.C:
		}
	}
}

// teardown stops the page's background blocks and its emulator, and removes its directory.
func (r *pageRun) teardown() {
	for _, pg := range r.bg {
		killGroup(pg)
	}
	if r.emu != nil {
		_ = r.emu.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.emuDone:
		case <-time.After(30 * time.Second):
			killGroup(r.emu.Process.Pid)
			<-r.emuDone
		}
	}
	if r.root != "" {
		_ = os.RemoveAll(r.root)
	}
}
