package wait

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// MaxTransient is how many transient errors in a row a wait tolerates.
const MaxTransient = 5

// Interrupted reports whether err ends an operation because Terraform cancelled it (Ctrl-C), as
// opposed to a timeout (context.DeadlineExceeded) or an API error.
func Interrupted(err error) bool { return errors.Is(err, context.Canceled) }

// For polls with backoff b until poll reports done, the ctx deadline (set from the `timeouts` block)
// passes or ctx is cancelled.
func For[T any](ctx context.Context, b Backoff, what string, poll func(ctx context.Context) (PollResult[T], error)) (T, error) {
	w := Waiter[T]{What: what, Backoff: b, MaxTransient: MaxTransient, Poll: poll}
	return w.Wait(api.WithPoll(ctx)) // under a rate limit, status polls wait behind creates and changes
}

// ---- the budget of an operation ----

// Budget is the one owner of how long an operation whose context has no deadline goes on riding out an
// outage: the API client (*api.Client: OutageBudget is the provider's outage_timeout, else the client's
// default). The waits that send a call again (WhileBusy, Create) end there, never at a budget of their
// own.
type Budget interface{ OutageBudget() time.Duration }

// operationEnd is when an operation that started at start stops sending its call again: ctx's deadline
// (hasDeadline), else the budget's outage budget after start.
func operationEnd(ctx context.Context, budget Budget, start time.Time) (end time.Time, hasDeadline bool) {
	if d, ok := ctx.Deadline(); ok {
		return d, true
	}
	return start.Add(budget.OutageBudget()), false
}

// ---- busy: 409 "try again later" ----

// Busy is one state-changing call that the API may answer 409 "busy, try again" (a 409 provably
// changed nothing). Every such call sets a target value, so a lost answer (5xx, no answer) and a 409
// are followed by a look (Applied) at whether the target already holds before the call is sent again.
type Busy struct {
	// What is waited for, in words: "the API to accept the resize of ...".
	What string
	Call func(context.Context) error
	// Before, when set, runs before each attempt: it waits until the object can take the call and
	// fails when it never will (a service must be READY). Its error ends the retry as it is.
	Before func(context.Context) error
	// Stuck, when set, says after a 409 whether the conflict can still clear: an error ends the retry.
	Stuck func(context.Context) error
	// Applied, when set, says whether the target of the call already holds: checked after a lost
	// answer and after a 409 (an earlier, interrupted apply may have made the same call).
	Applied func(context.Context) bool
	// MaxRetries bounds the attempts after the first that a 409 or an error other than an outage's
	// (a 500) ends; zero means until the timeout. An outage's lost answers (OutageLike) are not
	// counted: they are retried for the operation's whole budget.
	MaxRetries int
}

// OutageLike reports whether err, the failure of a state-changing call, is what an outage does to
// it: no HTTP answer (the connection failed, before or after the request was sent), or an answer of
// 502, 503 or 504 that reached the caller (the client never sends a POST again after a 504, nor after
// anything once its retries are off). A Busy call sets a target value, so it is sent again (after a
// look, when it may have taken effect) for as long as the operation's budget lasts. A 500 is not: a
// server bug may persist, and it counts against Busy.MaxRetries. Nor is an *api.OutageError: the
// client already rode the outage out until the budget ran out.
func OutageLike(err error) bool {
	if err == nil || api.IsOutage(err) {
		return false
	}
	var tErr *api.TransportError
	if errors.As(err, &tErr) {
		return true
	}
	switch api.StatusCode(err) {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// unanswered is the run of a busy call's attempts in a row that an outage cut (OutageLike): since
// when, how many, the last error, and when it was last logged. Its methods are the pure rule of what
// is logged when.
type unanswered struct {
	every    time.Duration // at most this often "still" is logged
	since    time.Time     // the first attempt of the run (zero: no run)
	lastLog  time.Time
	attempts int
	last     error
}

// failed records an attempt at now cut by the outage (err) and says whether to log it: the first of a
// run at once, then at most every u.every.
func (u *unanswered) failed(now time.Time, err error) (first, due bool) {
	first = u.since.IsZero()
	if first {
		u.since = now
	}
	u.attempts++
	u.last = err
	due = first || now.Sub(u.lastLog) >= u.every
	if due {
		u.lastLog = now
	}
	return first, due
}

// answered ends a run (the API answered the call, whatever it said) and returns what it was.
func (u *unanswered) answered() (since time.Time, attempts int) {
	since, attempts = u.since, u.attempts
	u.since, u.lastLog, u.attempts, u.last = time.Time{}, time.Time{}, 0, nil
	return since, attempts
}

// UnansweredError is a busy call that an outage kept from being answered until the operation's time
// budget ran out: it was sent Attempts times from Since to Until, and may or may not have taken effect.
type UnansweredError struct {
	What         string
	Since, Until time.Time
	Attempts     int
	// Last is the last attempt's error (an *api.TransportError, or an *api.APIError of 502, 503, 504).
	Last error
}

func (e *UnansweredError) Error() string {
	return fmt.Sprintf("while waiting for %s: the API did not answer the call for %s (from %s to %s UTC, %d attempts, until the "+
		"operation's time budget ran out); last: %s\n\nThe call may or may not have taken effect. It sets a target value, so running "+
		"the same command again is safe: it looks whether the change holds and sends it again if not. To wait longer for the API, "+
		"raise the resource's `timeouts`.", e.What, e.Until.Sub(e.Since).Round(time.Second), e.Since.UTC().Format(time.TimeOnly),
		e.Until.UTC().Format(time.TimeOnly), e.Attempts, e.Last.Error())
}

func (e *UnansweredError) Unwrap() error { return e.Last }

// WhileBusy makes a busy call: it sends the call until it succeeds, waiting with backoff b while the
// API answers 409, and looking (Applied) after a lost answer or a 409. An outage's lost answers
// (OutageLike) are sent again for the whole budget (ctx's deadline; without one, the client's outage
// budget: operationEnd), logged like the client logs an outage: once when the call meets it, then at
// most every 30 s, and once when the API answers again. It is the one way the provider waits out a
// busy object.
func WhileBusy(ctx context.Context, budget Budget, b Backoff, c Busy) error {
	look, attempt := false, 0
	until, hasDeadline := operationEnd(ctx, budget, time.Now())
	lost := unanswered{every: busyOutageLogEvery}
	unansweredErr := func(now time.Time) error {
		return &UnansweredError{What: c.What, Since: lost.since, Until: now, Attempts: lost.attempts, Last: lost.last}
	}
	beforeFailed := false
	_, err := For(ctx, b, c.What, func(ctx context.Context) (PollResult[struct{}], error) {
		if c.Before != nil {
			if err := c.Before(ctx); err != nil {
				beforeFailed = true
				return PollResult[struct{}]{}, Stop(err)
			}
		}
		if look && c.Applied != nil && c.Applied(ctx) {
			tflog.Info(ctx, "dbcloud: the call is already in effect (its answer was lost, or an earlier apply made it)", map[string]any{"what": c.What})
			return PollResult[struct{}]{Done: true}, nil
		}
		err := c.Call(ctx)
		now := time.Now()
		if err != nil && ctx.Err() != nil {
			if lost.attempts > 0 {
				lost.attempts++ // sent, and cut by the end of the budget
			}
			return PollResult[struct{}]{}, err // the waiter reports the timeout or the interrupt
		}
		if OutageLike(err) {
			look = api.IsAmbiguous(err)
			first, due := lost.failed(now, err)
			if !hasDeadline && !now.Before(until) {
				return PollResult[struct{}]{}, Stop(unansweredErr(now))
			}
			if due {
				logUnanswered(ctx, c.What, &lost, now, until, first)
			}
			return PollResult[struct{}]{Status: "API unavailable (an outage): sending the call again"}, nil
		}
		if since, n := lost.answered(); n > 0 {
			tflog.Info(ctx, fmt.Sprintf("dbcloud API answers the call again (waiting for %s), after %s without an answer (since %s UTC, %d attempts)",
				c.What, now.Sub(since).Round(time.Second), since.UTC().Format(time.TimeOnly), n), map[string]any{"what": c.What})
		}
		if err == nil {
			return PollResult[struct{}]{Done: true}, nil
		}
		look = api.IsAmbiguous(err) || api.IsConflict(err)
		if api.IsConflict(err) && c.Applied != nil && c.Applied(ctx) {
			tflog.Info(ctx, "dbcloud: the call answered 409, and its target already holds", map[string]any{"what": c.What})
			return PollResult[struct{}]{Done: true}, nil
		}
		attempt++
		return c.refused(ctx, err, attempt)
	})
	var timeout *TimeoutError
	if errors.As(err, &timeout) && !beforeFailed && !Interrupted(err) && lost.attempts > 0 {
		return unansweredErr(time.Now()) // the budget ran out while the outage lasted
	}
	return err
}

// refused is what the answer err to a busy call's attempt (the attempt-th after the first, not an
// outage's lost answer, not a 409 whose target already holds) does: a 409 is waited out (unless Stuck
// says it cannot clear), a transient error tried again, anything else ends the retry, and so does
// every error once MaxRetries attempts are spent.
func (c Busy) refused(ctx context.Context, err error, attempt int) (PollResult[struct{}], error) {
	if api.IsOutage(err) {
		return PollResult[struct{}]{}, Stop(err) // the client rode the outage out until the budget ran out
	}
	if c.MaxRetries > 0 && attempt > c.MaxRetries {
		return PollResult[struct{}]{}, Stop(err)
	}
	tflog.Debug(ctx, "dbcloud: state-changing call answered 409 or lost; trying again",
		map[string]any{"what": c.What, "attempt": attempt, "error": err.Error()})
	switch {
	case api.IsConflict(err):
		if c.Stuck != nil {
			if serr := c.Stuck(ctx); serr != nil {
				return PollResult[struct{}]{}, Stop(fmt.Errorf("%w\n\nThe API answered: %w", serr, err))
			}
		}
		return PollResult[struct{}]{Status: ConflictStatus(err)}, nil
	case IsTransient(err):
		return PollResult[struct{}]{}, err
	}
	return PollResult[struct{}]{}, Stop(err)
}

// busyOutageLogEvery is how often, at most, a busy call logs that the API still does not answer it.
const busyOutageLogEvery = 30 * time.Second

// logUnanswered tells the user that a busy call met an outage (first) or still does, as the client's
// own outage log does: since when, the last failure, and until when the call is sent again.
func logUnanswered(ctx context.Context, what string, u *unanswered, now, until time.Time, first bool) {
	fields := map[string]any{
		"what": what, "since": u.since.UTC().Format(time.RFC3339), "down_for": now.Sub(u.since).Round(time.Second).String(),
		"attempts": u.attempts, "last_failure": u.last.Error(), "retrying_until": until.UTC().Format(time.RFC3339),
	}
	if first {
		tflog.Warn(ctx, fmt.Sprintf("dbcloud API did not answer a call (waiting for %s): %s. The call sets a target value, so it is sent again "+
			"(after a look at whether it took effect) until %s UTC", what, u.last.Error(), until.UTC().Format(time.TimeOnly)), fields)
		return
	}
	tflog.Warn(ctx, fmt.Sprintf("dbcloud API still does not answer a call (waiting for %s), for %s since %s UTC (%d attempts; last: %s): sending it again until %s UTC",
		what, now.Sub(u.since).Round(time.Second), u.since.UTC().Format(time.TimeOnly), u.attempts, u.last.Error(),
		until.UTC().Format(time.TimeOnly)), fields)
}

// ConflictStatus is the waiter status shown for a 409 answer.
func ConflictStatus(err error) string {
	var apiErr *api.APIError
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		return "busy (HTTP 409: " + apiErr.Message + ")"
	}
	return "busy (HTTP 409)"
}

// ErrGone is what a Delete's get returns for an object that a record shows gone (like a 404).
var ErrGone = errors.New("the object is gone")

// Delete deletes an object and waits until it is gone. get reads the object (a 404 means gone)
// and says whether it is already being deleted; del asks for the deletion, and is asked again only
// while the object is neither gone nor being deleted (DELETE is idempotent). A 404 on DELETE is
// success, a 409 (busy) is waited out unless stuck (when set) says it will not clear, transient
// errors are polled through, others end the wait.
func Delete(ctx context.Context, b Backoff, what string, get func(context.Context) (status string, deleting bool, err error),
	del func(context.Context) error, stuck func(context.Context, error) error) error {
	_, err := For(ctx, b, what, func(ctx context.Context) (PollResult[struct{}], error) {
		status, deleting, err := get(ctx)
		switch {
		case api.IsNotFound(err), errors.Is(err, ErrGone):
			return PollResult[struct{}]{Done: true}, nil
		case err != nil:
			return PollResult[struct{}]{}, err
		case deleting:
			return PollResult[struct{}]{Status: status}, nil
		}
		err = del(ctx)
		switch {
		case err == nil:
			return PollResult[struct{}]{Status: "delete requested"}, nil
		case api.IsNotFound(err):
			return PollResult[struct{}]{Done: true}, nil
		case api.IsConflict(err):
			if stuck != nil {
				if serr := stuck(ctx, err); serr != nil {
					return PollResult[struct{}]{}, Stop(serr)
				}
			}
			return PollResult[struct{}]{Status: ConflictStatus(err)}, nil
		case IsTransient(err):
			return PollResult[struct{}]{}, err
		}
		return PollResult[struct{}]{}, Stop(err)
	})
	return err
}

// ---- lost create answers: find what the create made ----

// LookFor is how long FindCreated keeps looking for what a create whose answer was lost made (a
// variable for tests).
var LookFor = 10 * time.Second

// Created describes what a create made, for FindCreated: a list of the objects of its kind and a
// match for the one the create would have made (its name, and not there before the create).
type Created[T any] struct {
	// Kind and Name name the object in messages: "read replica set", "replica-1".
	Kind, Name string
	List       func(context.Context) ([]T, error)
	Match      func(*T) bool
	ID         func(*T) string
}

// UnresolvedError is a lost create answer that looking could not resolve (the list kept failing):
// the object may or may not exist.
type UnresolvedError struct {
	Kind, Name string
	Cause      error // the create's own error
	ListErr    error // the last error of the look
}

func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("%s\n\nThe answer to the create of %s %q was lost, and listing to find out whether it was created failed too: %s",
		e.Cause.Error(), e.Kind, e.Name, e.ListErr.Error())
}

func (e *UnresolvedError) Unwrap() error { return e.Cause }

// NotCreatedError is a lost create answer after which no such object appeared: nothing was created,
// and sending the create again is safe.
type NotCreatedError struct {
	Kind, Name string
	Cause      error
}

func (e *NotCreatedError) Error() string {
	return fmt.Sprintf("%s\n\nThe answer to the create of %s %q was lost, but no such object appeared, so nothing was created: apply again",
		e.Cause.Error(), e.Kind, e.Name)
}

func (e *NotCreatedError) Unwrap() error { return e.Cause }

// IsNotCreated reports whether err is a look that proved a lost create was not made (*NotCreatedError):
// sending the create again is safe.
func IsNotCreated(err error) bool {
	var notCreated *NotCreatedError
	return errors.As(err, &notCreated)
}

// FindCreated resolves a create whose answer was lost (cause) by looking, never by sending the create
// again. It looks with backoff b on a context that neither Ctrl-C nor the end of the operation's timeout
// cancels (lookContext), and rides out an outage: while the list fails, it keeps looking, each list
// retried by the client for its whole budget. Once the API answers, exactly one match is the one
// (found); none for LookFor after the first answer: *NotCreatedError, and sending the create again is
// safe; several: an error naming them. The look could not finish (the list kept failing until the
// budget ran out): *UnresolvedError.
func FindCreated[T any](ctx context.Context, b Backoff, c Created[T], cause error) (*T, error) {
	ctx, cancel := lookContext(ctx)
	defer cancel()
	var lastErr error
	var firstAnswer time.Time
	failures := 0
	unresolved := func(err error) error {
		return &UnresolvedError{Kind: c.Kind, Name: c.Name, Cause: cause, ListErr: err}
	}
	w := Waiter[*T]{
		What:         fmt.Sprintf("%s %q made by a create whose answer was lost", c.Kind, c.Name),
		Backoff:      b,
		MaxTransient: math.MaxInt,
		Poll: func(ctx context.Context) (PollResult[*T], error) {
			found, err := FindMatching(ctx, c.List, c.Match)
			if err != nil {
				lastErr = err
				failures++
				if api.IsOutage(err) || (IsTransient(err) && failures > 2*MaxTransient) {
					return PollResult[*T]{}, Stop(unresolved(err))
				}
				return PollResult[*T]{}, err
			}
			failures = 0
			if firstAnswer.IsZero() {
				firstAnswer = time.Now()
			}
			switch len(found) {
			case 0:
				if time.Since(firstAnswer) >= LookFor {
					return PollResult[*T]{}, Stop(&NotCreatedError{Kind: c.Kind, Name: c.Name, Cause: cause})
				}
				return PollResult[*T]{Status: "not found yet"}, nil
			case 1:
				return PollResult[*T]{Value: &found[0], Done: true}, nil
			}
			ids := make([]string, 0, len(found))
			for i := range found {
				ids = append(ids, c.ID(&found[i]))
			}
			return PollResult[*T]{}, Stop(fmt.Errorf("%w\n\nThe answer was lost, and %d objects of kind %s named %q created since then exist (%s): "+
				"the provider cannot tell which one this apply created. Delete the extra ones or import the right one with `terraform import`, "+
				"then apply again", cause, len(found), c.Kind, c.Name, strings.Join(ids, ", ")))
		},
	}
	found, err := w.Wait(ctx)
	var timeout *TimeoutError
	switch {
	case err == nil:
		tflog.Info(ctx, "dbcloud: a create's answer was lost, but the object exists: adopting it", map[string]any{"kind": c.Kind, "id": c.ID(found)})
		return found, nil
	case errors.As(err, &timeout):
		if lastErr == nil {
			lastErr = err
		}
		return nil, unresolved(lastErr)
	}
	return nil, err // found nothing, several candidates, or a list refused (403)
}

// lookContext is the context of a look after a lost create: not cancelled by Ctrl-C or by the end of
// the operation's timeout, bounded instead by the later of that deadline and LookFor + 30 s from now
// (no deadline: each list is bounded by the client's own budget), and, after Ctrl-C, by LookFor + 30 s.
func lookContext(ctx context.Context) (context.Context, context.CancelFunc) {
	grace := LookFor + 30*time.Second
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if d, ok := ctx.Deadline(); ok {
		var cancelDeadline context.CancelFunc
		lctx, cancelDeadline = context.WithDeadline(lctx, later(d, time.Now().Add(grace)))
		inner := cancel
		cancel = func() { cancelDeadline(); inner() }
	}
	var timer *time.Timer
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			timer = time.AfterFunc(grace, cancel)
		}
	})
	return lctx, func() {
		stop()
		if timer != nil {
			timer.Stop()
		}
		cancel()
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Create sends a create (send) and resolves a lost answer by looking (look, which uses FindCreated):
// found, it is the one (adopted is true: the object is the look's, not a create's answer); proven not
// made (*NotCreatedError), the create is sent again, as long as ctx lasts (without a deadline, for the
// client's outage budget: operationEnd), and a create sent again that is answered gives its own object
// (adopted is false); the look could not finish: its error (*UnresolvedError: the caller leaves a
// placeholder). Never a duplicate.
func Create[T any](ctx context.Context, budget Budget, send func(context.Context) (*T, error), look func(ctx context.Context, cause error) (*T, error)) (_ *T, adopted bool, _ error) {
	end, _ := operationEnd(ctx, budget, time.Now())
	for {
		v, err := send(ctx)
		if !api.IsAmbiguous(err) {
			return v, false, err
		}
		tflog.Warn(ctx, "dbcloud: the create's answer was lost; looking for what it made instead of sending it again", map[string]any{"error": err.Error()})
		found, ferr := look(ctx, err)
		var notCreated *NotCreatedError
		if !errors.As(ferr, &notCreated) || ctx.Err() != nil || !time.Now().Before(end) {
			return found, ferr == nil, ferr
		}
		tflog.Info(ctx, "dbcloud: the create whose answer was lost was not made: sending it again", map[string]any{"kind": notCreated.Kind, "name": notCreated.Name})
	}
}

// FindMatching lists objects and returns those that match.
func FindMatching[T any](ctx context.Context, list func(context.Context) ([]T, error), match func(*T) bool) ([]T, error) {
	all, err := list(ctx)
	if err != nil {
		return nil, err
	}
	var found []T
	for i := range all {
		if match(&all[i]) {
			found = append(found, all[i])
		}
	}
	return found, nil
}

// IDSet is the set of ids of objects (those that existed before a create).
func IDSet[T any](objs []T, id func(*T) string) map[string]bool {
	ids := make(map[string]bool, len(objs))
	for i := range objs {
		ids[id(&objs[i])] = true
	}
	return ids
}
