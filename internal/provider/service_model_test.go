package provider

import (
	"slices"
	"testing"
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
