package pagetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Setup runs the script in its directory with the environment given: the KEY=VALUE lines it writes to
// $PAGETEST_VARS are the answer, what it writes into $PAGETEST_WORKDIR stays; a failing script is an
// error with its output.
func TestSetup(t *testing.T) {
	tmp := t.TempDir()
	script := filepath.Join(tmp, "setup.sh")
	if err := os.WriteFile(script, []byte(`echo "ID=$ID_FROM_ENV" >"$PAGETEST_VARS"
echo "DIR=$PWD" >>"$PAGETEST_VARS"
echo state >"$PAGETEST_WORKDIR/terraform.tfstate"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	work, dir := t.TempDir(), filepath.Join(tmp, "setup")
	vars, err := Setup(script, dir, work, []string{"ID_FROM_ENV=abc", "PATH=" + os.Getenv("PATH")}, time.Minute)
	if err != nil || vars["ID"] != "abc" || vars["DIR"] != dir || len(vars) != 2 {
		t.Fatalf("Setup = %v, %v; want ID=abc and DIR=%s", vars, err, dir)
	}
	if b, err := os.ReadFile(filepath.Join(work, "terraform.tfstate")); err != nil || string(b) != "state\n" {
		t.Errorf("the reader's directory: %q, %v", b, err)
	}

	if err := os.WriteFile(script, []byte("echo the objects could not be made\nexit 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(script, dir, work, nil, time.Minute); err == nil || !strings.Contains(err.Error(), "exit 3") || !strings.Contains(err.Error(), "could not be made") {
		t.Errorf("a failing setup: %v", err)
	}
}
