package provider

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestServiceAddonsForServiceType(t *testing.T) {
	for _, c := range []struct {
		serviceType string
		want        []string
	}{
		{"POSTGRES", []string{}},
		{"TIMESERIESDB", []string{"time-series"}},
		{"TIMESCALEDB", []string{"time-series"}},
		{"timescaledb", []string{"time-series"}},
		{"VECTOR", []string{"ai"}},
		{"GRAPHDB", []string{}},
		{"", []string{}},
	} {
		if got := addonsForServiceType(c.serviceType); !slices.Equal(got, c.want) {
			t.Errorf("addonsForServiceType(%q) = %v, want %v", c.serviceType, got, c.want)
		}
	}
}

func TestServiceAddonsMatchServiceType(t *testing.T) {
	both := []string{"ai", "time-series"}
	for _, c := range []struct {
		addons      []string
		serviceType string
		want        bool
	}{
		{nil, "POSTGRES", true},
		{[]string{"ai"}, "POSTGRES", true}, // newer servers report POSTGRES for ai alone
		{[]string{"time-series"}, "POSTGRES", false},
		{both, "POSTGRES", false},
		{[]string{"time-series"}, "TIMESERIESDB", true},
		{[]string{"time-series"}, "TIMESCALEDB", true},
		{both, "TIMESERIESDB", true}, // both addons report TIMESERIESDB
		{[]string{"ai"}, "TIMESERIESDB", false},
		{[]string{"ai"}, "VECTOR", true},
		{both, "VECTOR", false},
		{nil, "VECTOR", false},
		{both, "SOMETHING_NEW", true}, // unknown types: cannot tell
	} {
		if got := addonsMatchServiceType(c.addons, c.serviceType); got != c.want {
			t.Errorf("addonsMatchServiceType(%v, %q) = %v, want %v", c.addons, c.serviceType, got, c.want)
		}
	}
}

// The state says the service is paused when its paused attribute does (what the last apply did, an
// interrupted stop included) or its status is paused by the record's rule (PAUSED or PAUSING).
func TestServiceFieldsIsPaused(t *testing.T) {
	for _, c := range []struct {
		paused types.Bool
		status string
		want   bool
	}{
		{types.BoolValue(false), "READY", false},
		{types.BoolValue(false), "PAUSED", true},
		{types.BoolValue(false), "PAUSING", true}, // paused outside Terraform, the stop under way
		{types.BoolValue(true), "READY", true},    // a stop sent, its wait interrupted
		{types.BoolValue(false), "RESUMING", false},
		{types.BoolNull(), "", false},
	} {
		f := serviceFields{Paused: c.paused, Status: types.StringValue(c.status)}
		if got := f.isPaused(); got != c.want {
			t.Errorf("paused %v, status %q: isPaused() = %v, want %v", c.paused, c.status, got, c.want)
		}
	}
}
