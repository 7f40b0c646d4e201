package thirdparty

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The repository's root is found from any directory below it; a directory outside has none.
func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "thirdparty", "thirdparty.go")); err != nil {
		t.Errorf("RepoRoot answered %s: %v", root, err)
	}
	if _, err := RepoRoot(t.TempDir()); err == nil {
		t.Error("a temporary directory has a repository root")
	}
}

// The cache key follows the Go sources (and go.mod, go.sum), not the other files.
func TestSourceHash(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", "package main\n")
	write("go.mod", "module x\n")
	first, err := SourceHash(dir)
	if err != nil {
		t.Fatal(err)
	}
	write("README.md", "not a source\n")
	if h, _ := SourceHash(dir); h != first {
		t.Error("a README changed the hash")
	}
	write("main.go", "package main\n\nfunc main() {}\n")
	if h, _ := SourceHash(dir); h == first {
		t.Error("a changed .go file kept the hash")
	}
}

// Without its source next to the repository a provider is not built: ErrNoSource, saying where.
func TestBuildWithoutSource(t *testing.T) {
	root := t.TempDir()
	_, err := Provider{Source: "example/none", Name: "none"}.Build(root, nil)
	if !errors.Is(err, ErrNoSource) {
		t.Fatalf("Build without a source: %v", err)
	}
	if p, ok := BySource("timescale/timescale"); !ok || p != Timescale {
		t.Errorf("BySource(timescale/timescale) = %v, %v", p, ok)
	}
	if _, ok := BySource("hashicorp/random"); ok {
		t.Error("BySource knows hashicorp/random")
	}
}
