// Command terraform-provider-dbcloud is the Terraform provider for the dbcloud managed database service.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/benchhooks"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/logging"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/provider"
)

// version is set by the release build (goreleaser: -X main.version=...).
var version = "dev"

//go:generate go tool tfplugindocs generate --provider-name dbcloud

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	logging.QuietUnobserved()       // no TF_LOG*: no JSON log lines that Terraform would discard
	stopHooks := benchhooks.Start() // only in a -tags benchhooks build (scripts/bench.sh)
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/dbcloud/dbcloud",
		Debug:           debug,
		ProtocolVersion: 6,
	})
	stopHooks()
	// Terraform stops its plugins on the way out, also after Ctrl-C, when it does not close the
	// ephemeral resources it opened: drop the logins still open.
	provider.DropOpenLogins()
	if err != nil {
		log.Fatal(err.Error())
	}
}
