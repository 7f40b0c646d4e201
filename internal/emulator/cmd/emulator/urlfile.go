package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// urlFile is the -url-file FILE: the emulator's base URL, written once it serves, so that a script
// that starts it in the background waits for FILE instead of parsing its output. FILE is removed at
// start (a caller never reads the URL of an earlier run), written atomically (a temporary file in
// the same directory, renamed: a reader sees no file or the whole URL) and removed at exit.
type urlFile string

// clear removes FILE, if any, before the emulator starts.
func (f urlFile) clear() error {
	if f == "" {
		return nil
	}
	if err := os.Remove(string(f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("-url-file: removing the URL of an earlier run: %w", err)
	}
	return nil
}

// write writes url (and a newline) to FILE atomically.
func (f urlFile) write(url string) error {
	if f == "" {
		return nil
	}
	name := string(f)
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return fmt.Errorf("-url-file: %w", err)
	}
	_, err = tmp.WriteString(url + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("-url-file: %w", err)
	}
	return nil
}

// remove removes FILE at exit when it still holds url (not when something else wrote it since).
func (f urlFile) remove(url string) {
	if f == "" {
		return
	}
	if b, err := os.ReadFile(string(f)); err == nil && strings.TrimSpace(string(b)) == url {
		_ = os.Remove(string(f))
	}
}
