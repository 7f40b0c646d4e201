package pagetest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The API emulator of a page: started with -url-file, stopped at the end of the page.

func (r *pageRun) startEmulator() (string, error) {
	pg := r.cfg.Postgres
	if v := r.page.Options["postgres"]; v != "" {
		pg = v
	}
	if pg == "" {
		pg = "auto"
	}
	cmd := exec.Command(r.cfg.Emulator, "-addr", "127.0.0.1:0", "-access-key", accessKey, "-secret-key", secretKey,
		"-projects", projectID, "-timing", "fast", "-postgres", pg)
	// Its own process group (a block's leftovers are looked for by group), and
	// stopped with the runner, also when the runner is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	logf, err := os.Create(filepath.Join(r.root, "emulator.log"))
	if err != nil {
		return "", err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("emulator: %w", err)
	}
	r.emu = cmd
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case u, ok := <-line:
		if !ok || !strings.HasPrefix(u, "http://") {
			return "", fmt.Errorf("the emulator did not start: %s", readTail(filepath.Join(r.root, "emulator.log")))
		}
		return u, nil
	case <-time.After(2 * time.Minute):
		return "", errors.New("the emulator did not print its URL within 2 minutes")
	}
}

func (r *pageRun) teardown() {
	for _, pg := range r.bg {
		killGroup(pg)
	}
	if r.emu != nil && r.emu.Process != nil {
		_ = r.emu.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = r.emu.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			killGroup(r.emu.Process.Pid)
			<-done
		}
	}
	if r.root != "" {
		_ = os.RemoveAll(r.root)
	}
}
