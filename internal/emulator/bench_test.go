package emulator

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

func benchClient(b *testing.B, srv *Server) *api.ClientWithResponses {
	b.Helper()
	c, err := api.NewClientWithResponses(srv.URL, api.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.SetBasicAuth(testKey, testSecret)
		return nil
	}))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkCreateService measures one validated create round trip through the generated client.
func BenchmarkCreateService(b *testing.B) {
	srv := NewServer(Options{AccessKey: testKey, SecretKey: testSecret, Timing: FastTiming()})
	defer srv.Close()
	c := benchClient(b, srv)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		resp, err := c.CreateServiceWithResponse(ctx, testProject, api.ServiceCreate{Name: fmt.Sprintf("bench-%d", i)})
		if err != nil || resp.StatusCode() != http.StatusAccepted {
			b.Fatalf("create: %v %d", err, resp.StatusCode())
		}
	}
}

// BenchmarkListServices1000 measures listing a project of 1000 services: time and memory per list.
func BenchmarkListServices1000(b *testing.B) {
	srv := NewServer(Options{AccessKey: testKey, SecretKey: testSecret})
	defer srv.Close()
	c := benchClient(b, srv)
	ctx := context.Background()
	for i := range 1000 {
		if _, err := c.CreateServiceWithResponse(ctx, testProject, api.ServiceCreate{Name: fmt.Sprintf("svc-%d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.ListServicesWithResponse(ctx, testProject)
		if err != nil || resp.JSON200 == nil || len(*resp.JSON200) != 1000 {
			b.Fatalf("list: %v", err)
		}
	}
}
