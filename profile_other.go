//go:build !unix

package main

// startBenchHooks is a no-op where getrusage is not available: the benchmark hooks are for unix.
func startBenchHooks() (stop func()) { return func() {} }
