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
	m, err := pgbackend.Start(t.Context(), pgbackend.Options{})
	if err != nil {
		t.Fatalf("starting PostgreSQL (this test needs its server binaries): %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	src, _, err := m.Create(t.Context(), "src0000001", pgbackend.CreateOptions{Password: "src-pw"})
	if err != nil {
		t.Fatal(err)
	}
	check := func(port int, password string, args ...string) (string, error) {
		t.Setenv("PGCHECK_TEST_PW", password)
		var stdout, stderr strings.Builder
		err := run(t.Context(), append(args, "-port", strconv.Itoa(port), "-password-env", "PGCHECK_TEST_PW", "-wait", "0s"), &stdout, &stderr)
		return stdout.String() + stderr.String(), err
	}
	if out, err := check(src.Port(), "src-pw", "write", "-value", "hello"); err != nil || !strings.Contains(out, "wrote") {
		t.Fatalf("write: %v %s", err, out)
	}
	fork, err := m.Fork(t.Context(), "src0000001", "fork000001", "fork-pw")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := check(fork.Port(), "fork-pw", "read", "-value", "hello"); err != nil || !strings.Contains(out, `read "hello"`) {
		t.Fatalf("read from the fork: %v %s", err, out)
	}
	if _, err := check(fork.Port(), "fork-pw", "read", "-value", "absent"); err == nil {
		t.Error("read of a missing value worked")
	}
	if _, err := check(fork.Port(), "wrong", "read", "-value", "hello"); err == nil {
		t.Error("read with a wrong password worked")
	}
	if _, err := check(fork.Port(), "fork-pw", "read", "-value", "hello", "-sslmode", "disable"); err == nil {
		t.Error("a login without TLS worked")
	}
}

func TestUsage(t *testing.T) {
	t.Setenv("PGPASSWORD", "x")
	for _, args := range [][]string{
		nil,
		{"drop"},
		{"read", "extra"},
		{"read", "-user", ""},
		{"read", "-password-env", "PGCHECK_TEST_UNSET"},
	} {
		var stderr strings.Builder
		if _, err := parse(args, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v", args, err)
		}
	}
}
