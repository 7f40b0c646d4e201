package pgbackend

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// machineView is a directory of stubs that stands for a machine's PATH when scripts/test-deps.sh
// runs: PostgreSQL 15 installed, its client's pgxs.mk present (as Debian ships it), the server
// headers absent (postgres.h appears when apt-get installs postgresql-server-dev-15), every other
// tool there. apt-get records its arguments in apt.log.
type machineView struct {
	dir, include string
}

func newMachineView(t *testing.T, uid string, sudo bool) machineView {
	t.Helper()
	v := machineView{dir: t.TempDir()}
	v.include = filepath.Join(v.dir, "include", "server")
	if err := os.MkdirAll(v.include, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.dir, "pgxs.mk"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stubs := map[string]string{
		"pg_config": `case "$1" in
--version) echo "PostgreSQL 15.18 (view)" ;;
--includedir-server) echo "` + v.include + `" ;;
--pgxs) echo "` + filepath.Join(v.dir, "pgxs.mk") + `" ;;
--bindir) echo "` + v.dir + `" ;;
--cc) echo gcc ;;
esac`,
		"apt-get": `echo "$*" >>"` + filepath.Join(v.dir, "apt.log") + `"
case " $* " in *" postgresql-server-dev-15 "*) : >"` + filepath.Join(v.include, "postgres.h") + `" ;; esac`,
		"id": "echo " + uid,
	}
	if sudo {
		stubs["sudo"] = `[ "$1" = -n ] && shift; exec "$@"`
	}
	for _, name := range []string{"initdb", "psql", "pgbouncer", "make", "gcc", "curl", "jq", "unzip"} {
		stubs[name] = "exit 0"
	}
	for name, body := range stubs {
		if err := os.WriteFile(filepath.Join(v.dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"sh", "true", "sort", "tail", "basename"} { // what the script itself runs
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(v.dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// run runs scripts/test-deps.sh with the view as PATH; it answers the output, whether it
// succeeded, and what apt-get was asked.
func (v machineView) run(t *testing.T) (out string, ok bool, apt string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, filepath.Join("..", "..", "..", "scripts", "test-deps.sh"))
	cmd.Env = []string{"PATH=" + v.dir, "HOME=" + v.dir}
	b, err := cmd.CombinedOutput()
	log, _ := os.ReadFile(filepath.Join(v.dir, "apt.log"))
	return string(b), err == nil, string(log)
}

// TestTestDepsInstallsMissingHeaders: scripts/test-deps.sh takes the server headers for missing
// when postgres.h is not in `pg_config --includedir-server`, though pgxs.mk is there, and installs
// postgresql-server-dev-<major of the server> with apt-get as root or with passwordless sudo;
// without either it names them with the exact command and installs nothing; with everything there
// it does nothing.
func TestTestDepsInstallsMissingHeaders(t *testing.T) {
	for _, tt := range []struct {
		name string
		uid  string
		sudo bool
	}{{"root", "0", false}, {"sudo", "1000", true}} {
		v := newMachineView(t, tt.uid, tt.sudo)
		out, ok, apt := v.run(t)
		if !ok || !strings.Contains(apt, "install -y -qq postgresql-server-dev-15\n") {
			t.Errorf("%s: ok %v, apt-get was asked %q; output:\n%s", tt.name, ok, apt, out)
		}
		if _, err := os.Stat(filepath.Join(v.include, "postgres.h")); err != nil {
			t.Errorf("%s: headers not installed: %v", tt.name, err)
		}
		// Now everything is there: nothing more is installed.
		if err := os.Remove(filepath.Join(v.dir, "apt.log")); err != nil {
			t.Fatal(err)
		}
		if out, ok, apt := v.run(t); !ok || apt != "" {
			t.Errorf("%s, all there: ok %v, apt-get was asked %q; output:\n%s", tt.name, ok, apt, out)
		}
	}

	v := newMachineView(t, "1000", false)
	out, ok, apt := v.run(t)
	t.Logf("not root, no sudo:\n%s", out)
	want := "apt-get install -y postgresql-server-dev-15\n"
	if ok || apt != "" || !strings.Contains(out, want) || !strings.Contains(out, "postgres.h in "+v.include) {
		t.Errorf("not root, no sudo: ok %v, apt-get was asked %q; output:\n%s\nwant it to name %q", ok, apt, out, want)
	}
}
