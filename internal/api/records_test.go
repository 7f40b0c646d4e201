package api

import "testing"

// Paused is the one rule of "the service is paused": PAUSED, or PAUSING (a stop under way); every
// other status, a record without one and no record are not paused.
func TestServicePaused(t *testing.T) {
	for _, c := range []struct {
		status ServiceStatus
		want   bool
	}{
		{PAUSED, true}, {PAUSING, true},
		{READY, false}, {RESUMING, false}, {CONFIGURING, false}, {QUEUED, false}, {DELETING, false}, {DELETED, false},
		{UNSTABLE, false}, {"", false}, {"SOMETHING_NEW", false},
	} {
		st := c.status
		if got := st.Paused(); got != c.want {
			t.Errorf("ServiceStatus(%q).Paused() = %v, want %v", st, got, c.want)
		}
		if got := (&Service{Status: &st}).Paused(); got != c.want {
			t.Errorf("a service record in %q: Paused() = %v, want %v", st, got, c.want)
		}
	}
	if (&Service{}).Paused() || (*Service)(nil).Paused() {
		t.Error("a record without a status (or no record) is paused")
	}
}
