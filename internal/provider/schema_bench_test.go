package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// BenchmarkProviderSchema measures a provider server from its creation to the full schema served
// (GetProviderSchema: the provider, every resource and data source), i.e. the in-process part of the
// start-up of every provider process Terraform launches (scripts/bench.sh adds the exec and handshake).
func BenchmarkProviderSchema(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		srv := providerserver.NewProtocol6(New("bench")())()
		resp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || len(resp.Diagnostics) > 0 || len(resp.ResourceSchemas) == 0 {
			b.Fatalf("GetProviderSchema: %v %v", err, resp.Diagnostics)
		}
	}
}
