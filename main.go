// Command terraform-provider-dbcloud is the Terraform provider for the dbcloud managed database service.
package main

import (
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

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
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	// The framework's server, wrapped so that Ctrl-C drops the logins the provider made.
	server := provider.ServerClosingLoginsOnStop(providerserver.NewProtocol6(provider.New(version)())())
	err := tf6server.Serve("registry.terraform.io/dbcloud/dbcloud", func() tfprotov6.ProviderServer { return server }, opts...)
	stopHooks()
	if err != nil {
		log.Fatal(err.Error())
	}
}
