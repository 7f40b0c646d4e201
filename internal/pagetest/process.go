package pagetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/clitest"
)

// Processes: a block's run in a process group of its own, background servers, leftovers.

// execShell runs bash -c wrapper in a process group of its own, with "yes" lines
// (1 MiB) on stdin for Terraform's confirmations. Processes of the group still running after
// bash exits are reported (in the output, with leftoverMark) and killed.
func (r *pageRun) execShell(env []string, wrapper string) (string, int, error) {
	// Each terraform reads a buffer's worth of stdin: enough for every prompt of a block.
	yes := strings.Repeat("yes\n", 1<<18)
	return r.exec("", env, strings.NewReader(yes), "bash", "-c", wrapper)
}

// exec runs a command of the page (execIn), for at most the runner's BlockTimeout.
func (r *pageRun) exec(dir string, env []string, stdin io.Reader, name string, args ...string) (string, int, error) {
	return execIn(r.cfg.BlockTimeout, dir, env, stdin, name, args...)
}

// execIn runs a command in dir in a process group of its own and answers its output (stdout and
// stderr) and exit status; after timeout its group is stopped. Processes of the group still running
// after it exits are reported (in the output, with leftoverMark) and killed.
func execIn(timeout time.Duration, dir string, env []string, stdin io.Reader, name string, args ...string) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = stdin
	var buf clitest.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Background processes keep the pipes open: Wait must not wait for them.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return "", 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		killGroup(cmd.Process.Pid)
		werr = <-done
		return buf.String(), -1, fmt.Errorf("still running after %s: stopped (%w)", timeout, werr)
	}
	// A process that its block stopped on the way out may take a moment to go.
	procs := groupProcs(cmd.Process.Pid)
	for i := 0; i < 20 && len(procs) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
		procs = groupProcs(cmd.Process.Pid)
	}
	if len(procs) > 0 {
		killGroup(cmd.Process.Pid)
		buf.WriteString("\n" + leftoverMark + strings.Join(procs, "; ") + "\n")
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil && !errors.Is(werr, exec.ErrWaitDelay) {
		return buf.String(), 0, werr
	}
	return buf.String(), code, nil
}

// background starts a block marked background (a server the reader leaves
// running in another terminal) and waits for its first line of output, or for the
// ready="regexp" of its marker. It is stopped when the page ends.
func (r *pageRun) background(what string, b Block, wrapper string) {
	cmd := exec.Command("bash", "-c", wrapper)
	cmd.Env = r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var buf clitest.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		r.fail(what, err.Error(), "")
		return
	}
	r.bg = append(r.bg, cmd.Process.Pid)
	go func() { _ = cmd.Wait() }()
	ready := regexp.MustCompile(`\S`)
	if s := b.Marker["ready"]; s != "" {
		re, err := regexp.Compile(s)
		if err != nil {
			r.fail(what, "ready=: "+err.Error(), "")
			return
		}
		ready = re
	}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if ready.MatchString(buf.String()) {
			r.ok(what + " (in the background)")
			return
		}
		if len(groupProcs(cmd.Process.Pid)) == 0 {
			r.fail(what, "the background block exited", buf.String())
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.fail(what, "the background block printed nothing matching "+ready.String()+" within 2 minutes", buf.String())
}

// groupProcs lists the processes of process group pgid ("pid command").
func groupProcs(pgid int) []string {
	if err := syscall.Kill(-pgid, 0); err != nil {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		s := string(stat)
		j := strings.LastIndexByte(s, ')')
		if j < 0 {
			continue
		}
		f := strings.Fields(s[j+1:])
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, fmt.Sprintf("%d %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
		}
	}
	return out
}

func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	for range 50 {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// leftoverMark starts the line exec adds to a block's output when the block left processes running.
const leftoverMark = "pagetest: left running: "

func leftover(out string) string {
	if i := strings.Index(out, leftoverMark); i >= 0 {
		return "the block " + strings.TrimSpace(out[i+len("pagetest: "):])
	}
	return ""
}
