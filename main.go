// Command terraform-provider-dbcloud is the Terraform provider for the dbcloud managed database service.
package main

import (
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

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
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	// The framework's server with the provider's per-resource shortcuts (internal/provider/fastpath.go).
	server, err := provider.NewProtocol6(version)()
	if err == nil {
		err = tf6server.Serve("registry.terraform.io/dbcloud/dbcloud", func() tfprotov6.ProviderServer { return server }, opts...)
	}
	stopBenchHooks()
	if err != nil {
		log.Fatal(err.Error())
	}
}
