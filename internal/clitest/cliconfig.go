package clitest

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// Registries are the hosts a CLI gives a provider of a short source: Terraform's and OpenTofu's.
var Registries = []string{"registry.terraform.io", "registry.opentofu.org"}

// DBCloud is this provider's registry source, as a configuration's required_providers names it.
const DBCloud = "dbcloud/dbcloud"

// CLIConfig is a CLI configuration (for TF_CLI_CONFIG_FILE) whose dev_overrides name, for each
// registry source ("dbcloud/dbcloud", "cyrilgdn/postgresql"), the directory of its build, under both
// registries' addresses (so that Terraform and OpenTofu alike use it without `init`); every other
// provider is installed as usual. The README's "Against the live API" configuration is its first line.
func CLIConfig(dirs map[string]string) string {
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, source := range slices.Sorted(maps.Keys(dirs)) {
		for _, host := range Registries {
			fmt.Fprintf(&b, "    %q = %q\n", host+"/"+source, dirs[source])
		}
	}
	b.WriteString("  }\n  direct {}\n}\n")
	return b.String()
}

// WriteCLIConfig writes CLIConfig(dirs) to the file name (readable by its owner only).
func WriteCLIConfig(name string, dirs map[string]string) error {
	return os.WriteFile(name, []byte(CLIConfig(dirs)), 0o600)
}
