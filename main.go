// Command terraform-provider-dbcloud is the Terraform provider for the dbcloud managed database service.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/provider"
)

// version is set by the release build (goreleaser: -X main.version=...).
var version = "dev"

//go:generate go tool tfplugindocs generate --provider-name dbcloud

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	quietUnobservedLogs()               // no TF_LOG*: no JSON log lines that Terraform would discard (logs.go)
	stopBenchHooks := startBenchHooks() // DBCLOUD_CPUPROFILE / DBCLOUD_RUSAGE (profile.go): off by default
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/dbcloud/dbcloud",
		Debug:   debug,
	})
	stopBenchHooks()
	if err != nil {
		log.Fatal(err.Error())
	}
}
