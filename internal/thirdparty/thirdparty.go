// Package thirdparty builds the other projects' Terraform providers that the tests and the page runner
// use as real clients (the PostgreSQL provider users pair with dbcloud_service; the vendor's official
// provider users migrate from), from their source in ../shared/third_party next to the repository's
// root (as CI checks it out), into one build cache: the user's cache directory, keyed by a hash of the
// source, so that each is built once and reused by every later test run and page run. Their binaries
// are then named in a CLI configuration's dev_overrides (internal/clitest writes it).
package thirdparty

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Provider is a provider of ../shared/third_party.
type Provider struct {
	Source string // its registry source, as a configuration's required_providers names it
	Name   string // its type name (the binary is terraform-provider-NAME, its source directory the same)
}

// The providers of ../shared/third_party.
var (
	PostgreSQL = Provider{Source: "cyrilgdn/postgresql", Name: "postgresql"}
	Timescale  = Provider{Source: "timescale/timescale", Name: "timescale"}
)

// BySource is the provider of a registry source (false when ../shared/third_party has none such).
func BySource(source string) (Provider, bool) {
	for _, p := range []Provider{PostgreSQL, Timescale} {
		if p.Source == source {
			return p, true
		}
	}
	return Provider{}, false
}

const module = "module github.com/dbcloud/terraform-provider-dbcloud\n"

// RepoRoot is the repository's root: the first directory at or above dir whose go.mod is this module's.
func RepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for ; ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), module) {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("no repository root (the go.mod of " + strings.TrimSpace(strings.TrimPrefix(module, "module ")) + ") above " + dir)
		}
	}
}

// SourceDir is the provider's source next to the repository whose root is root ("" when it is not there).
func (p Provider) SourceDir(root string) string {
	src := filepath.Join(root, "..", "shared", "third_party", "terraform-provider-"+p.Name)
	if _, err := os.Stat(filepath.Join(src, "main.go")); err != nil {
		return ""
	}
	return src
}

// Binary is the file name of the provider's binary.
func (p Provider) Binary() string { return "terraform-provider-" + p.Name }

// ErrNoSource: the provider's source is not next to the repository.
var ErrNoSource = errors.New("no source")

// Build answers the directory of the provider's binary built from its source next to the repository
// whose root is root: from the cache when it holds a build of this source, else built now (about two
// minutes on 2 cores with a cold Go build cache) from a copy of the source (which may be read-only),
// with GOFLAGS=-mod=mod, as its README says. Builds of the same source by several processes at once
// are serialized by a lock file: the first builds, the others take its binary. logf (may be nil) is
// told of a build. Without the source it answers ErrNoSource, wrapped with where it looked.
func (p Provider) Build(root string, logf func(format string, args ...any)) (string, error) {
	src := p.SourceDir(root)
	if src == "" {
		return "", fmt.Errorf("%w: %s is not in %s", ErrNoSource, p.Binary(), filepath.Join(root, "..", "shared", "third_party"))
	}
	key, err := SourceHash(src)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "terraform-provider-dbcloud", p.Name+"-provider-"+key)
	bin := filepath.Join(dir, p.Binary())
	if _, err := os.Stat(bin); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(dir, "build.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil { // built by another process while this one waited
		return dir, nil
	}
	start := time.Now()
	if err := build(src, bin); err != nil {
		return "", fmt.Errorf("building %s from %s: %w", p.Binary(), src, err)
	}
	if logf != nil {
		logf("built %s in %s (cached in %s)", p.Binary(), time.Since(start).Round(time.Second), dir)
	}
	return dir, nil
}

// build builds the main package of src into bin, from a private copy of src.
func build(src, bin string) error {
	work, err := os.MkdirTemp("", "thirdparty-build-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()
	if out, err := exec.Command("cp", "-R", src+"/.", work).CombinedOutput(); err != nil {
		return fmt.Errorf("copying the source: %w\n%s", err, out)
	}
	_ = filepath.WalkDir(work, func(p string, _ fs.DirEntry, _ error) error { return os.Chmod(p, 0o755) }) //nolint:gosec // a private copy
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin+".tmp", ".")
	cmd.Dir, cmd.Env = work, append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return os.Rename(bin+".tmp", bin)
}

// lock takes an exclusive lock on the file name (made if missing), waiting for it; unlock releases it.
func lock(name string) (unlock func(), err error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil // closing releases the lock
}

// SourceHash is a hash of a Go module's sources (go.mod, go.sum and every .go file): the cache key.
func SourceHash(root string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".go") && name != "go.mod" && name != "go.sum" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:16], err
}
