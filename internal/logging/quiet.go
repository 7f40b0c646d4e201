// Package logging holds the process-wide log settings of the provider binary.
package logging

import (
	"os"
	"strings"
)

// QuietUnobserved turns the SDK's and the provider's log output off when no TF_LOG* variable is
// set. Unset, the plugin SDK logs at TRACE by default: every request writes JSON log lines to the
// plugin's stderr, which Terraform (with TF_LOG unset) parses and throws away. In the profile of a
// 200-service plan that was about a fifth of the provider's CPU. Terraform passes its environment to
// the provider, so with TF_LOG (or any TF_LOG_* variable) set, nothing changes and the logs flow as
// before.
func QuietUnobserved() {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG") {
			return
		}
	}
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"} {
		_ = os.Setenv(name, "off")
	}
}
