// Package logging holds the process-wide log settings of the provider binary.
package logging

import (
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// ProviderLevelVariable is the variable terraform-plugin-go reads the level of this provider's own
// logger from (tflog in the provider's code): TF_LOG_PROVIDER_ and the type of the served address
// (registry.terraform.io/dbcloud/dbcloud), upper-cased. Unset, that logger logs at TRACE.
const ProviderLevelVariable = "TF_LOG_PROVIDER_DBCLOUD"

// QuietUnobserved turns the SDK's and the provider's log output off when no TF_LOG* variable is
// set. Unset, the plugin SDK and the provider's own logger log at TRACE by default: every request
// writes JSON log lines to the plugin's stderr, which Terraform (with TF_LOG unset) parses and throws
// away. In the profile of a 200-service plan that was about a fifth of the provider's CPU; the
// provider's own logger also wrote each API answer whole (a list of 5,000 services: megabytes, masked
// first). Terraform passes its environment to the provider, so with TF_LOG (or any TF_LOG_* variable)
// set, nothing changes and the logs flow as before.
func QuietUnobserved() {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG") {
			return
		}
	}
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER", ProviderLevelVariable} {
		_ = os.Setenv(name, "off")
	}
}

// ProviderLogOff reports whether the provider's own logger is off (its level, ProviderLevelVariable,
// is "off", as QuietUnobserved sets it): the provider then skips the work of log lines nobody reads,
// such as masking every API answer.
func ProviderLogOff() bool {
	return hclog.LevelFromString(os.Getenv(ProviderLevelVariable)) == hclog.Off
}
