package wait

import (
	"context"
	"time"
)

// Detached returns a context that keeps ctx's values but is not cancelled with it (Ctrl-C, the end of
// an operation's timeout), bounded by d instead: for the calls that must still be made after an
// interrupt (a lost create's lookup, saving progress, a read shared by other callers).
func Detached(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}
