package pgbackend

import (
	"context"
	"errors"
	"testing"
	"time"
)

// untilReady: nil once try answers nil; errExited when the process ends first; the context's error
// when it is done first; each error keeps try's last answer.
func TestUntilReady(t *testing.T) {
	notYet := errors.New("not yet")
	running := make(chan struct{})
	calls := 0
	if err := untilReady(t.Context(), running, func() error {
		if calls++; calls < 3 {
			return notYet
		}
		return nil
	}); err != nil || calls != 3 {
		t.Errorf("ready on the third try: %v after %d tries", err, calls)
	}

	exited := make(chan struct{})
	close(exited)
	if err := untilReady(t.Context(), exited, func() error { return notYet }); !errors.Is(err, errExited) || !errors.Is(err, notYet) {
		t.Errorf("the process exited: %v, want errExited with the last answer", err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := untilReady(ctx, running, func() error { return notYet }); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, notYet) || errors.Is(err, errExited) {
		t.Errorf("never ready: %v, want the deadline with the last answer", err)
	}
}
