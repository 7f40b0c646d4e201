package emulatortest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

const (
	testKey     = "test-access-key"
	testSecret  = "test-secret-key"
	testProject = "proj000001"
)

// env is a Server with a generated client.
type env struct {
	t   *testing.T
	srv *Server
	c   *api.ClientWithResponses
	ctx context.Context
}

// newEnv starts a Server with the test credentials, closed when the test ends, and a client for it.
func newEnv(t *testing.T, opts emulator.Options) *env {
	t.Helper()
	opts.AccessKey, opts.SecretKey = testKey, testSecret
	srv := NewServer(opts)
	t.Cleanup(srv.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	c, err := api.NewClientWithResponses(srv.URL,
		api.WithHTTPClient(&http.Client{Transport: tr, Timeout: 10 * time.Second}),
		api.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.SetBasicAuth(testKey, testSecret)
			return nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, srv: srv, c: c, ctx: t.Context()}
}

func str[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}
