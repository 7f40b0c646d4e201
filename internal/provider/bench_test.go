package provider

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// BenchmarkWaitServiceReady measures how long the provider takes to see a new service READY when the
// API needs 120ms (FastTiming: QUEUED then CONFIGURING). "A fast API means a fast apply": the
// reported overshoot-ms is the time spent waiting beyond the API's own transition time, and
// polls/op is how many GETs it cost, with the production backoff and with the test backoff.
func BenchmarkWaitServiceReady(b *testing.B) {
	for _, bc := range []struct {
		name    string
		backoff wait.Backoff
	}{{"default-backoff", wait.DefaultBackoff}, {"test-backoff", testBackoff}} {
		b.Run(bc.name, func(b *testing.B) {
			timing := emulator.FastTiming()
			srv := emulator.NewServer(emulator.Options{AccessKey: testAccessKey, SecretKey: testSecretKey, Timing: timing})
			defer srv.Close()
			client, err := api.New(api.Config{BaseURL: srv.URL, AccessKey: testAccessKey, SecretKey: testSecretKey, ProjectID: testProjectID})
			if err != nil {
				b.Fatal(err)
			}
			pd := &providerData{client: client, backoff: bc.backoff}
			ctx := context.Background()
			apiTime := timing.ServiceQueued + timing.ServiceConfiguring
			var overshoot time.Duration
			srv.ResetRequests()
			for i := 0; b.Loop(); i++ {
				svc, err := client.CreateService(ctx, api.ServiceCreate{Name: fmt.Sprintf("bench-%d", i)})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if _, err := waitServiceReady(ctx, pd, *svc.ServiceID, true); err != nil {
					b.Fatal(err)
				}
				overshoot += time.Since(start) - apiTime
			}
			b.ReportMetric(float64(overshoot.Milliseconds())/float64(b.N), "overshoot-ms/op")
			b.ReportMetric(float64(srv.Calls("getService"))/float64(b.N), "polls/op")
		})
	}
}

// BenchmarkFlattenService measures mapping one API record to Terraform values.
func BenchmarkFlattenService(b *testing.B) {
	svc := &api.Service{
		ServiceID: ptr("rp1pz7uyae"), ProjectID: ptr("tp1project0"), Name: ptr("bench"), RegionCode: ptr("us-east-1"),
		ServiceType: ptr("TIMESERIESDB"), Status: ptr(api.READY),
		Resources:   &[]api.Resource{{ID: ptr("r1"), Spec: &api.ResourceSpec{CPUMillis: ptr(1000), MemoryGbs: ptr(4), VolumeType: ptr("gp3")}}},
		Metadata:    &api.ServiceMetadata{Environment: ptr("PROD")},
		Endpoint:    &api.Endpoint{Host: ptr("rp1pz7uyae.tp1project0.db.dbcloud.example"), Port: ptr(5432)},
		HaReplicas:  &api.HAReplicas{ReplicaCount: ptr(2), SyncReplicaCount: ptr(1)},
		VpcEndpoint: &api.VPCEndpoint{Host: ptr("v.example"), Port: ptr(5432), VpcID: ptr("1234567890")},
	}
	b.ReportAllocs()
	for b.Loop() {
		var m serviceResourceModel
		m.applyRecord(svc, "tp1project0")
		benchSink = m
	}
}

var benchSink serviceResourceModel
