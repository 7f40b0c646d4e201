package provider

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// serveProviderForTerraform serves the provider (with the tests' fast backoff and retries) over
// go-plugin in this process under the registry address addr, and returns the TF_REATTACH_PROVIDERS
// value that makes a real terraform process use it. The server stops at the end of the test. It is
// for the tests that must drive the terraform binary themselves (signals, -parallelism, query).
func serveProviderForTerraform(t *testing.T, addr string) string {
	t.Helper()
	return serveProviderServerForTerraform(t, addr, testProviderServer)
}

// serveProviderServerForTerraform is serveProviderForTerraform with the provider server newServer
// makes (e.g. with another retry policy).
func serveProviderServerForTerraform(t *testing.T, addr string, newServer func() (tfprotov6.ProviderServer, error)) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfgCh := make(chan *plugin.ReattachConfig, 1)
	closeCh := make(chan struct{})
	server, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	factory := func() tfprotov6.ProviderServer { return server }
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- tf6server.Serve(addr, factory,
			tf6server.WithDebug(ctx, cfgCh, closeCh),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithLoggingSink(t),
			tf6server.WithoutLogStderrOverride())
	}()
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-cfgCh:
	case err := <-serveErr:
		cancel()
		t.Fatalf("serving the provider: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the provider server did not start")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-closeCh:
		case <-time.After(10 * time.Second):
		}
	})
	reattach, err := json.Marshal(map[string]any{addr: map[string]any{
		"Protocol":        string(cfg.Protocol),
		"ProtocolVersion": cfg.ProtocolVersion,
		"Pid":             cfg.Pid,
		"Test":            cfg.Test,
		"Addr":            map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(reattach)
}
