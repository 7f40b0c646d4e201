package logging

import (
	"os"
	"strings"
	"testing"
)

// clearTFLog removes every TF_LOG* variable for the test (t.Setenv restores them afterwards).
func clearTFLog(t *testing.T) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "TF_LOG") {
			t.Setenv(name, "")
			_ = os.Unsetenv(name)
		}
	}
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER", ProviderLevelVariable} {
		t.Setenv(name, "") // restored after the test, whatever QuietUnobserved sets
		_ = os.Unsetenv(name)
	}
}

func TestQuietUnobservedTurnsEveryLoggerOff(t *testing.T) {
	clearTFLog(t)
	if ProviderLogOff() {
		t.Fatal("ProviderLogOff before QuietUnobserved: the provider's logger logs at TRACE when its variable is unset")
	}
	QuietUnobserved()
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER", ProviderLevelVariable} {
		if got := os.Getenv(name); got != "off" {
			t.Errorf("%s = %q after QuietUnobserved, want off", name, got)
		}
	}
	if !ProviderLogOff() {
		t.Error("ProviderLogOff is false after QuietUnobserved")
	}
}

func TestQuietUnobservedLeavesAnObservedLogAlone(t *testing.T) {
	for _, set := range []string{"TF_LOG", "TF_LOG_PROVIDER", ProviderLevelVariable} {
		t.Run(set, func(t *testing.T) {
			clearTFLog(t)
			t.Setenv(set, "DEBUG")
			QuietUnobserved()
			for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_FRAMEWORK", ProviderLevelVariable} {
				if name != set && os.Getenv(name) != "" {
					t.Errorf("%s = %q with %s set, want it unset", name, os.Getenv(name), set)
				}
			}
			if ProviderLogOff() {
				t.Errorf("ProviderLogOff with %s=DEBUG", set)
			}
		})
	}
}
