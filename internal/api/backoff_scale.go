package api

import (
	"strconv"
	"time"
)

// backoffScale is a test knob, empty in every release build: the tests that run the provider as a
// process of its own (the fleet through an outage) build it with
//
//	go build -ldflags "-X github.com/dbcloud/terraform-provider-dbcloud/internal/api.backoffScale=0.1"
//
// to shrink the backoff bounds (WaitMin, WaitMax) of every retry policy by the factor by which they
// shrink the emulator's outage windows, so that a short outage is ridden out as a long one is, with as
// many attempts. Tests that run the provider in-process pass a RetryPolicy instead.
var backoffScale string

// scaledBackoff is p with its backoff bounds multiplied by backoffScale, when that is a number in
// (0, 1]; otherwise p unchanged.
func scaledBackoff(p RetryPolicy) RetryPolicy {
	f, err := strconv.ParseFloat(backoffScale, 64)
	if err != nil || f <= 0 || f > 1 {
		return p
	}
	p.WaitMin = time.Duration(float64(p.WaitMin) * f)
	p.WaitMax = time.Duration(float64(p.WaitMax) * f)
	return p
}
