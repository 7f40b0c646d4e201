package emulatortest_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// A test starts an emulator, talks to it with the generated client and inspects or changes its
// state directly.
func ExampleNewServer() {
	srv := emulatortest.NewServer(emulator.Options{
		AccessKey: "key",
		SecretKey: "secret",
		Timing:    emulator.Timing{}, // zero: every phase is over at the next access; tests usually pass FastTiming()
	})
	defer srv.Close()

	client, err := api.NewClientWithResponses(srv.URL, api.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.SetBasicAuth("key", "secret")
		return nil
	}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	created, err := client.CreateServiceWithResponse(ctx, "proj000001", api.ServiceCreate{Name: "db", Addons: &[]api.Addon{api.TimeSeries}})
	if err != nil {
		panic(err)
	}
	id := *created.JSON202.ServiceID
	fmt.Println(created.StatusCode(), *created.JSON202.Status, *created.JSON202.ServiceType)

	got, err := client.GetServiceWithResponse(ctx, "proj000001", id)
	if err != nil {
		panic(err)
	}
	fmt.Println(got.StatusCode(), *got.JSON200.Status, got.JSON200.InitialPassword == nil)

	// Break it behind the client's back.
	srv.UpdateService("proj000001", id, func(s *api.Service) { s.Status = ptr(api.UNSTABLE) })
	s, _ := srv.Service("proj000001", id)
	fmt.Println(*s.Status, srv.Calls("getService"))

	// Output:
	// 202 QUEUED TIMESCALEDB
	// 200 READY true
	// UNSTABLE 1
}

func ptr[T any](v T) *T { return &v }
