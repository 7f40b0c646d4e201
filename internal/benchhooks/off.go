//go:build !unix || !benchhooks

// Package benchhooks holds the benchmark hooks of the provider binary (scripts/bench.sh builds it
// with -tags benchhooks). In every other build Start does nothing.
package benchhooks

// Start is a no-op unless the binary was built with -tags benchhooks (on unix).
func Start() (stop func()) { return func() {} }
