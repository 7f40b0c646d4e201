package wait

import (
	"context"
	"errors"
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
		v, looked, err := Create(context.Background(),
			func(context.Context) (*string, error) { sends++; return nil, lost },
			func(context.Context, error) (*string, error) {
				e := c.looks[looks]
				looks++
				if e != nil {
					return nil, e
				}
				return &made, nil
			})
		if sends != c.wantSends || (err != nil) != c.wantErr || !looked || (err == nil && v != &made) {
			t.Errorf("%s: %d sends, looked %v, err %v; want %d sends", c.name, sends, looked, err, c.wantSends)
		}
	}
	// An answer that is not lost is returned as it is, without a look.
	sends := 0
	_, looked, err := Create(context.Background(),
		func(context.Context) (*string, error) { sends++; return nil, &api.APIError{StatusCode: 400} },
		func(context.Context, error) (*string, error) { t.Fatal("looked"); return nil, nil })
	if sends != 1 || looked || api.StatusCode(err) != 400 {
		t.Errorf("a 400: %d sends, looked %v, %v", sends, looked, err)
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
