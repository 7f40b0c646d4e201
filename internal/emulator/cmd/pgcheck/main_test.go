package main

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
)

// TestWriteForkRead writes a row to a service, forks it and reads the row from the fork, as the
// demo does. It needs the PostgreSQL server binaries (never skipped).
func TestWriteForkRead(t *testing.T) {
	c, err := pgbackend.Start(t.Context(), pgbackend.Options{})
	if err != nil {
		t.Fatalf("starting PostgreSQL (this test needs its server binaries): %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := c.CreateService(t.Context(), "src0000001", "src-pw", pgbackend.ServiceOptions{}); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(c.Port())
	check := func(password string, args ...string) (string, error) {
		t.Setenv("PGCHECK_TEST_PW", password)
		var stdout, stderr strings.Builder
		err := run(t.Context(), append(args, "-port", port, "-password-env", "PGCHECK_TEST_PW", "-wait", "0s"), &stdout, &stderr)
		return stdout.String() + stderr.String(), err
	}
	if out, err := check("src-pw", "write", "-service", "src0000001", "-value", "hello"); err != nil || !strings.Contains(out, "wrote") {
		t.Fatalf("write: %v %s", err, out)
	}
	if _, err := c.Fork(t.Context(), "src0000001", "fork000001", "fork-pw"); err != nil {
		t.Fatal(err)
	}
	if out, err := check("fork-pw", "read", "-service", "fork000001", "-value", "hello"); err != nil || !strings.Contains(out, `read "hello"`) {
		t.Fatalf("read from the fork: %v %s", err, out)
	}
	if _, err := check("fork-pw", "read", "-service", "fork000001", "-value", "absent"); err == nil {
		t.Error("read of a missing value worked")
	}
	if _, err := check("wrong", "read", "-service", "fork000001", "-value", "hello"); err == nil {
		t.Error("read with a wrong password worked")
	}
}

func TestUsage(t *testing.T) {
	t.Setenv("PGPASSWORD", "x")
	for _, args := range [][]string{
		nil,
		{"drop"},
		{"read"},
		{"read", "-service", "s", "extra"},
		{"read", "-service", "s", "-password-env", "PGCHECK_TEST_UNSET"},
	} {
		var stderr strings.Builder
		if _, err := parse(args, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v", args, err)
		}
	}
}
