package wait

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// A create whose answer is lost is looked for; it is sent again only when the look proves it was not
// made, and never when the look found it or could not finish.
func TestCreateSendsAgainOnlyWhenNotMade(t *testing.T) {
	lost := &api.TransportError{Operation: "create vpc", Err: errors.New("EOF")}
	made := "vpc-1"
	cases := []struct {
		name      string
		looks     []error // what each look answers (nil: found)
		wantSends int
		wantErr   bool
	}{
		{"found at the first look", []error{nil}, 1, false},
		{"not made, then made on the second send", []error{&NotCreatedError{Kind: "vpc", Name: "n", Cause: lost}, nil}, 2, false},
		{"the look could not finish", []error{&UnresolvedError{Kind: "vpc", Name: "n", Cause: lost, ListErr: lost}}, 1, true},
		{"several candidates", []error{errors.New("several")}, 1, true},
	}
	for _, c := range cases {
		sends, looks := 0, 0
		v, adopted, err := Create(context.Background(), testBudget,
			func(context.Context) (*string, error) { sends++; return nil, lost },
			func(context.Context, error) (*string, error) {
				e := c.looks[looks]
				looks++
				if e != nil {
					return nil, e
				}
				return &made, nil
			})
		looked := looks > 0
		if sends != c.wantSends || (err != nil) != c.wantErr || !looked || (err == nil && v != &made) {
			t.Errorf("%s: %d sends, looked %v, err %v; want %d sends", c.name, sends, looked, err, c.wantSends)
		}
		// The object found by a look is adopted; an error adopts nothing.
		if adopted != (err == nil) {
			t.Errorf("%s: adopted %v with err %v", c.name, adopted, err)
		}
	}
	// An answer that is not lost is returned as it is, without a look.
	sends := 0
	_, adopted, err := Create(context.Background(), testBudget,
		func(context.Context) (*string, error) { sends++; return nil, &api.APIError{StatusCode: 400} },
		func(context.Context, error) (*string, error) { t.Fatal("looked"); return nil, nil })
	if sends != 1 || adopted || api.StatusCode(err) != 400 {
		t.Errorf("a 400: %d sends, adopted %v, %v", sends, adopted, err)
	}
	// A lost answer, a look that proves the create was not made, and a create sent again that is
	// answered: the object is that answer's, not adopted.
	sends = 0
	v, adopted, err := Create(context.Background(), testBudget,
		func(context.Context) (*string, error) {
			if sends++; sends == 1 {
				return nil, lost
			}
			return &made, nil
		},
		func(context.Context, error) (*string, error) {
			return nil, &NotCreatedError{Kind: "vpc", Name: "n", Cause: lost}
		})
	if sends != 2 || adopted || err != nil || v != &made {
		t.Errorf("sent again after a look that found nothing: %d sends, adopted %v, %v, %v; want 2 sends, not adopted", sends, adopted, v, err)
	}
}

// FindCreated rides out an outage: while the list fails it keeps looking; once the list answers, it
// finds the object. A list whose budget ran out (*api.OutageError) ends the look unresolved.
func TestFindCreatedRidesOutAnOutage(t *testing.T) {
	lost := &api.TransportError{Operation: "create vpc", Err: errors.New("EOF")}
	calls := 0
	objs := []string{"a"}
	c := Created[string]{Kind: "vpc", Name: "a",
		List: func(context.Context) ([]string, error) {
			calls++
			if calls <= 8 {
				return nil, &api.APIError{StatusCode: 503}
			}
			return objs, nil
		},
		Match: func(s *string) bool { return *s == "a" }, ID: func(s *string) string { return *s }}
	found, err := FindCreated(context.Background(), testBackoff, c, lost)
	if err != nil || *found != "a" || calls != 9 {
		t.Fatalf("FindCreated = %v, %v after %d lists; want a after 8 failures", found, err, calls)
	}

	c.List = func(context.Context) ([]string, error) {
		return nil, &api.OutageError{Operation: "list vpcs", Since: time.Now(), Until: time.Now(), Cause: &api.APIError{StatusCode: 503}}
	}
	var unresolved *UnresolvedError
	if _, err := FindCreated(context.Background(), testBackoff, c, lost); !errors.As(err, &unresolved) {
		t.Errorf("a list whose budget ran out: %v, want *UnresolvedError", err)
	}
}

// The rule: what an outage does to a state-changing call (no answer, 502, 503, 504 reaching the
// caller) is sent again for the budget; a 500, a 409, a 429 and an *api.OutageError are not.
func TestOutageLike(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"connection closed after sending", &api.TransportError{Operation: "update password", Err: errors.New("EOF")}, true},
		{"connection refused", &api.TransportError{Operation: "update password", NotSent: true, Err: errors.New("refused")}, true},
		{"502", &api.APIError{StatusCode: 502}, true},
		{"503", &api.APIError{StatusCode: 503}, true},
		{"504", &api.APIError{StatusCode: 504}, true},
		{"500", &api.APIError{StatusCode: 500}, false},
		{"409", &api.APIError{StatusCode: 409}, false},
		{"429", &api.APIError{StatusCode: 429}, false},
		{"400", &api.APIError{StatusCode: 400}, false},
		{"the client's budget ran out", &api.OutageError{Operation: "resize", Since: time.Now(), Until: time.Now(), Cause: &api.APIError{StatusCode: 503}}, false},
		{"nil", nil, false},
	}
	for _, c := range cases {
		if got := OutageLike(c.err); got != c.want {
			t.Errorf("%s: OutageLike = %v, want %v", c.name, got, c.want)
		}
	}
}

// busyCalls is a Busy call that answers errs in turn, then succeeds; it counts its calls and looks.
type busyCalls struct {
	errs         []error
	calls, looks int
}

func (b *busyCalls) busy(maxRetries int) Busy {
	return Busy{
		What: "service s1 to accept setting the password", MaxRetries: maxRetries,
		Call: func(context.Context) error {
			b.calls++
			if b.calls <= len(b.errs) {
				return b.errs[b.calls-1]
			}
			return nil
		},
		Applied: func(context.Context) bool { b.looks++; return false },
	}
}

func repeat(err error, n int) []error {
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// A call cut by more dropped connections (or 504s) in a row than MaxRetries and MaxTransient is sent
// again until the API answers, each time after a look at whether it took effect.
func TestWhileBusySendsAgainThroughAnOutage(t *testing.T) {
	dropped := &api.TransportError{Operation: "update password", Err: errors.New("EOF")}
	for _, lost := range []error{dropped, &api.APIError{Operation: "resize service", StatusCode: 504}} {
		b := &busyCalls{errs: repeat(lost, 3*MaxTransient)}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := WhileBusy(ctx, testBudget, testBackoff, b.busy(4))
		cancel()
		if err != nil || b.calls != 3*MaxTransient+1 || b.looks != 3*MaxTransient {
			t.Errorf("%v: WhileBusy = %v after %d calls and %d looks; want success after %d calls, a look before each resend",
				lost, err, b.calls, b.looks, 3*MaxTransient+1)
		}
	}
	// 503s that reached the caller provably changed nothing: sent again without a look.
	b := &busyCalls{errs: repeat(&api.APIError{StatusCode: 503}, 3*MaxTransient)}
	if err := WhileBusy(context.Background(), testBudget, testBackoff, b.busy(4)); err != nil || b.looks != 0 {
		t.Errorf("503s: WhileBusy = %v with %d looks; want success without a look", err, b.looks)
	}
}

// A 500 keeps counting against MaxRetries, even between an outage's lost answers: a persistent server
// bug ends the call, not the timeout.
func TestWhileBusyCounts500s(t *testing.T) {
	e500 := &api.APIError{Operation: "resize service", StatusCode: 500}
	dropped := &api.TransportError{Operation: "resize service", Err: errors.New("EOF")}
	var mixed []error
	for range 10 {
		mixed = append(mixed, dropped, e500)
	}
	for name, errs := range map[string][]error{"500s": repeat(e500, 20), "500s between drops": mixed} {
		b := &busyCalls{errs: errs}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := WhileBusy(ctx, testBudget, testBackoff, b.busy(4))
		cancel()
		fives := 0
		for _, e := range errs[:b.calls] {
			if errors.Is(e, e500) {
				fives++
			}
		}
		if api.StatusCode(err) != 500 || fives != 5 {
			t.Errorf("%s: WhileBusy = %v after %d 500s; want the 500 after 5 (the first and 4 retries)", name, err, fives)
		}
	}
}

// When the budget runs out during the outage, the error says the call was not answered, for how long,
// how often it was sent, and that running the command again is safe; Ctrl-C stays an interrupt; an
// *api.OutageError (the client's own budget ran out) ends the call as it is.
func TestWhileBusyOutageOutlastsTheBudget(t *testing.T) {
	dropped := &api.TransportError{Operation: "update password", Err: errors.New("EOF")}
	b := &busyCalls{errs: repeat(dropped, 1<<20)}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := WhileBusy(ctx, testBudget, testBackoff, b.busy(4))
	var un *UnansweredError
	if !errors.As(err, &un) || un.Attempts != b.calls || b.calls <= MaxTransient || !errors.Is(err, dropped) ||
		!strings.Contains(err.Error(), "running the same command again is safe") || !strings.Contains(err.Error(), "attempts") {
		t.Errorf("WhileBusy = %v after %d calls; want an *UnansweredError counting every call", err, b.calls)
	}

	b = &busyCalls{errs: repeat(dropped, 1<<20)}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	if err := WhileBusy(ctx, testBudget, testBackoff, b.busy(4)); !Interrupted(err) || errors.As(err, &un) {
		t.Errorf("Ctrl-C during the outage: %v, want an interrupt", err)
	}

	outage := &api.OutageError{Operation: "update password", Since: time.Now(), Until: time.Now(), Cause: &api.APIError{StatusCode: 503}}
	b = &busyCalls{errs: repeat(outage, 10)}
	if err := WhileBusy(context.Background(), testBudget, testBackoff, b.busy(4)); !errors.Is(err, outage) || b.calls != 1 {
		t.Errorf("an *api.OutageError: %v after %d calls, want it at once", err, b.calls)
	}
}

// The log rule: the first lost answer of a run is logged at once, then at most every 30 s; an answer
// ends the run, and the next lost answer starts a new one.
func TestUnansweredLogsWithoutFlooding(t *testing.T) {
	u := unanswered{every: 30 * time.Second}
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	lost := errors.New("EOF")
	steps := []struct {
		at         time.Duration
		first, due bool
	}{{0, true, true}, {2 * time.Second, false, false}, {29 * time.Second, false, false}, {30 * time.Second, false, true},
		{45 * time.Second, false, false}, {61 * time.Second, false, true}}
	for _, s := range steps {
		if first, due := u.failed(t0.Add(s.at), lost); first != s.first || due != s.due {
			t.Errorf("at +%s: first %v due %v, want %v %v", s.at, first, due, s.first, s.due)
		}
	}
	if since, n := u.answered(); !since.Equal(t0) || n != len(steps) {
		t.Errorf("answered: since %s, %d attempts; want %s, %d", since, n, t0, len(steps))
	}
	if first, due := u.failed(t0.Add(70*time.Second), lost); !first || !due {
		t.Errorf("after an answer: first %v due %v, want a new run logged at once", first, due)
	}
}

// An operation whose context has no deadline ends at the API client's outage budget (its
// outage_timeout), not at a budget of the waits' own (api.DefaultMaxElapsed, 5 minutes): 7 minutes
// with outage_timeout = 7m, the client's default without one; a deadline is the end.
func TestOperationEndIsTheClientsBudget(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	client := func(retry *api.RetryPolicy) *api.Client {
		c, err := api.New(api.Config{BaseURL: "http://127.0.0.1:1/v1", AccessKey: "a", SecretKey: "s", ProjectID: "p", Retry: retry})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	sevenMinutes := api.DefaultRetryPolicy
	sevenMinutes.MaxElapsed = 7 * time.Minute // what the provider's outage_timeout = "7m" sets
	if end, hasDeadline := operationEnd(context.Background(), client(&sevenMinutes), t0); hasDeadline || !end.Equal(t0.Add(7*time.Minute)) {
		t.Errorf("outage_timeout 7m, no deadline: ends at +%s (deadline %v), want +7m", end.Sub(t0), hasDeadline)
	}
	if end, _ := operationEnd(context.Background(), client(nil), t0); !end.Equal(t0.Add(api.DefaultMaxElapsed)) {
		t.Errorf("no outage_timeout, no deadline: ends at +%s, want the client's default %s", end.Sub(t0), api.DefaultMaxElapsed)
	}
	deadline := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if end, hasDeadline := operationEnd(ctx, client(&sevenMinutes), t0); !hasDeadline || !end.Equal(deadline) {
		t.Errorf("a deadline: ends at %s (deadline %v), want the deadline %s", end, hasDeadline, deadline)
	}
}

// Without a deadline, a busy call cut by an outage and a create whose lost answer is proven not made
// are sent again until the client's outage budget runs out, then fail (an *UnansweredError, the look's
// *NotCreatedError): with a client whose budget is 300 ms, well before api.DefaultMaxElapsed.
func TestSendingAgainEndsAtTheClientsBudget(t *testing.T) {
	short := api.DefaultRetryPolicy
	short.MaxElapsed = 300 * time.Millisecond
	client, err := api.New(api.Config{BaseURL: "http://127.0.0.1:1/v1", AccessKey: "a", SecretKey: "s", ProjectID: "p", Retry: &short})
	if err != nil {
		t.Fatal(err)
	}
	dropped := &api.TransportError{Operation: "rename vpc", Err: errors.New("EOF")}
	ends := func(what string, run func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- run() }()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatalf("%s: still sending after a minute, with a client whose outage budget is %s", what, short.MaxElapsed)
			return nil
		}
	}

	b := &busyCalls{errs: repeat(dropped, 1<<20)}
	err = ends("WhileBusy", func() error { return WhileBusy(context.Background(), client, testBackoff, b.busy(4)) })
	var un *UnansweredError
	if !errors.As(err, &un) || b.calls < 2 || un.Attempts != b.calls {
		t.Errorf("WhileBusy without a deadline: %v after %d calls; want an *UnansweredError once the budget ran out", err, b.calls)
	}

	sends := 0
	err = ends("Create", func() error {
		_, _, err := Create(context.Background(), client,
			func(context.Context) (*string, error) { sends++; return nil, dropped },
			func(context.Context, error) (*string, error) {
				time.Sleep(10 * time.Millisecond) // a look takes a while
				return nil, &NotCreatedError{Kind: "vpc", Name: "n", Cause: dropped}
			})
		return err
	})
	if !IsNotCreated(err) || sends < 2 {
		t.Errorf("Create without a deadline: %v after %d sends; want the look's *NotCreatedError once the budget ran out", err, sends)
	}
}
