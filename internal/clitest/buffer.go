package clitest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that a command's stdout and stderr, and its reader, may use at once.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// WriteString appends p (a note of the reader's between the command's lines).
func (s *Buffer) WriteString(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(p)
}

// String is what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
