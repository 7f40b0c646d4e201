package main

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePostgresFlags(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		mode, dir string
		wantUsage bool
	}{
		{nil, "auto", "", false},
		{[]string{"-postgres", "off"}, "off", "", false},
		{[]string{"-postgres", "on", "-postgres-bindir", "/opt/pg/bin"}, "on", "/opt/pg/bin", false},
		{[]string{"-postgres", "yes"}, "", "", true},
	} {
		var stderr strings.Builder
		c, err := parseFlags(tt.args, &stderr)
		if tt.wantUsage {
			if !errors.Is(err, errUsage) || stderr.Len() == 0 {
				t.Errorf("%q: err = %v, stderr %q", tt.args, err, stderr.String())
			}
			continue
		}
		if err != nil || c.postgres != tt.mode || c.postgresBinDir != tt.dir {
			t.Errorf("%q: postgres %q, bindir %q, err %v", tt.args, c.postgres, c.postgresBinDir, err)
		}
	}
}

// A -postgres-bindir without the server binaries is an error, even with auto.
func TestRunBadPostgresBinDir(t *testing.T) {
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-postgres-bindir", t.TempDir()}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "initdb") {
		t.Errorf("err = %v", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q", stdout.String())
	}
}
