package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// benchService is a realistic Service record, as a create answer carries it.
var benchService = []byte(strings.ReplaceAll(fullService, `"status": "READY",`, `"status": "QUEUED", "initial_password": "Init1al-Passw0rd",`))

func BenchmarkMaskBody(b *testing.B) {
	b.Run("service JSON", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchService)))
		for b.Loop() {
			_ = MaskBody(benchService, testSecretKey)
		}
	})
	b.Run("list of 50 services", func(b *testing.B) {
		list := []byte("[" + strings.Repeat(string(benchService)+",", 49) + string(benchService) + "]")
		b.ReportAllocs()
		b.SetBytes(int64(len(list)))
		for b.Loop() {
			_ = MaskBody(list, testSecretKey)
		}
	})
	b.Run("HTML page", func(b *testing.B) {
		page := []byte("<html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("<p>upstream error</p>", 100) + "</body></html>")
		b.ReportAllocs()
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			_ = MaskBody(page, testSecretKey)
		}
	})
}

func BenchmarkRetryDelay(b *testing.B) {
	p := DefaultRetryPolicy
	for i := 0; b.Loop(); i++ {
		_ = RetryDelay(i%8, p.WaitMin, p.WaitMax, -1, p.MaxRetryAfter, 0.5)
	}
}

// BenchmarkGetService measures one full round trip through the hand-written layer (auth, retrying
// doer, logging transport, decoding) against an httptest server.
func BenchmarkGetService(b *testing.B) {
	c, _ := newTestClient(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(fullService))
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.GetService(ctx, "svc1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAPIError measures decoding an error answer into an *APIError.
func BenchmarkAPIError(b *testing.B) {
	c, _ := newTestClient(b, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, `{"code":"NOT_FOUND","message":"service svc1 not found","details":"it was deleted"}`)
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.GetService(ctx, "svc1"); !IsNotFound(err) {
			b.Fatal(err)
		}
	}
}
