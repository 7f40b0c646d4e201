package clitest

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// EmulatorOptions are the flags of an emulator started by StartEmulator.
type EmulatorOptions struct {
	Binary                          string // the emulator's command (dbcloud-emulator), built from internal/emulator/cmd/emulator
	Dir                             string // where its URL file (emulator.url) and its log (emulator.log) go
	AccessKey, SecretKey, ProjectID string
	Postgres                        string        // its -postgres: auto (when empty), on or off
	Timing                          string        // its -timing: fast (when empty), demo or instant
	StartTimeout                    time.Duration // how long it may take to serve (StartTimeout when zero)
}

// StartTimeout bounds the wait for the emulator's URL: initdb of the PostgreSQL template on a loaded
// machine takes a while.
const StartTimeout = 2 * time.Minute

// Emulator is the emulator's command, serving on a free loopback port.
type Emulator struct {
	URL  string // its base URL (http://127.0.0.1:PORT/v1)
	Log  string // the file of its log (stderr)
	cmd  *exec.Cmd
	done chan struct{} // closed once it has exited
}

// StartEmulator starts the emulator on a free loopback port, in a process group of its own (stopped
// with the caller, also when the caller is killed), and answers once it serves: it writes its URL to a
// file (-url-file) then. It fails when the emulator exits first or does not serve within the timeout,
// with the end of its log.
func StartEmulator(o EmulatorOptions) (*Emulator, error) {
	urlFile := filepath.Join(o.Dir, "emulator.url")
	e := &Emulator{Log: filepath.Join(o.Dir, "emulator.log"), done: make(chan struct{})}
	e.cmd = exec.Command(o.Binary, "-addr", "127.0.0.1:0", "-access-key", o.AccessKey, "-secret-key", o.SecretKey,
		"-projects", o.ProjectID, "-timing", cmp.Or(o.Timing, "fast"), "-postgres", cmp.Or(o.Postgres, "auto"), "-url-file", urlFile)
	// Its own process group (a caller that looks for its own leftovers by group does not meet it), and
	// stopped with the caller, also when the caller is killed.
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	logf, err := os.Create(e.Log)
	if err != nil {
		return nil, err
	}
	e.cmd.Stderr = logf
	if err := e.cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("emulator: %w", err)
	}
	go func() {
		_ = e.cmd.Wait()
		_ = logf.Close()
		close(e.done)
	}()
	if e.URL, err = WaitForFile(urlFile, e.done, cmp.Or(o.StartTimeout, StartTimeout)); err != nil {
		e.Stop()
		b, _ := os.ReadFile(e.Log)
		return nil, fmt.Errorf("the emulator did not start: %w: %s", err, lastLines(string(b), 10))
	}
	return e, nil
}

// Stop stops the emulator (SIGTERM; its process group is killed when it has not exited after 30
// seconds) and waits for it.
func (e *Emulator) Stop() {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
		<-e.done
	}
}

// WaitForFile answers the first line of the file name once it is there and not empty, polling until
// timeout; it gives up at once when exited is closed (the process that writes it is gone).
func WaitForFile(name string, exited <-chan struct{}, timeout time.Duration) (string, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for {
		if b, err := os.ReadFile(name); err == nil && len(bytes.TrimSpace(b)) > 0 {
			first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
			return first, nil
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

// lastLines is the last n lines of s, "..." first when lines were left out.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n") + "\n"
}
