package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/logging"
)

func TestLogsNeverCarrySecrets(t *testing.T) {
	const (
		newPassword     = "Upd4ted-Passw0rd-77aa"
		initialPassword = "Init1al-Passw0rd-88bb"
	)
	rec := &recorder{}
	c, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		n := rec.record(r)
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/services"):
			writeJSON(w, 202, `{"service_id":"svc1","status":"QUEUED","initial_password":"`+initialPassword+`","endpoint":{"host":"h","port":5432}}`)
		case strings.HasSuffix(r.URL.Path, "/updatePassword") && n == 2:
			// An error answer that echoes the password it was sent.
			writeJSON(w, 400, `{"code":"BAD_REQUEST","message":"password rejected","details":"'`+newPassword+`' is too weak"}`)
		case strings.HasSuffix(r.URL.Path, "/updatePassword"):
			w.WriteHeader(204)
		case r.Method == http.MethodGet && n == 4:
			// A retried answer: it must be logged (masked) too.
			writeJSON(w, 503, errorBody("UNAVAILABLE", "busy"))
		default:
			// An error body that echoes the secret key.
			writeJSON(w, 409, `{"code":"CONFLICT","message":"service is not ready","details":"key `+testSecretKey+` may not do that"}`)
		}
	})
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)

	svc, err := c.CreateService(ctx, ServiceCreate{Name: "db"})
	if err != nil || *svc.InitialPassword != initialPassword {
		t.Fatalf("CreateService = %+v, %v", svc, err)
	}
	if err := c.UpdatePassword(ctx, "svc1", newPassword); !IsBadRequest(err) {
		t.Fatalf("UpdatePassword = %v, want the 400", err)
	}
	if err := c.UpdatePassword(ctx, "svc1", newPassword); err != nil {
		t.Fatalf("UpdatePassword: %v", err)
	}
	if _, err := c.GetService(ctx, "svc1"); !IsConflict(err) {
		t.Fatalf("GetService = %v, want the 409", err)
	}
	if rec.hits.Load() != 5 {
		t.Fatalf("%d hits, want 5", rec.hits.Load())
	}

	logs := buf.String()
	basic := base64.StdEncoding.EncodeToString([]byte(testAccessKey + ":" + testSecretKey))
	for name, secret := range map[string]string{
		"secret key": testSecretKey, "new password": newPassword, "initial password": initialPassword, "basic auth value": basic,
	} {
		if strings.Contains(logs, secret) {
			t.Errorf("the logs carry the %s %q:\n%s", name, secret, logs)
		}
	}

	entries, err := tflogtest.MultilineJSONDecode(strings.NewReader(logs))
	if err != nil {
		t.Fatalf("logs are not JSON lines: %v", err)
	}
	type seen struct{ method, url string }
	requests := map[seen]bool{}
	statuses := map[float64]bool{}
	var sawAuthHeader, sawMaskedPassword, sawRetry bool
	for _, e := range entries {
		// The outage notices (outage.go) are the only entries above debug: they carry no request data.
		outageNotice := strings.HasPrefix(fmt.Sprint(e["@message"]), "dbcloud API unavailable") ||
			strings.HasPrefix(fmt.Sprint(e["@message"]), "dbcloud API answers again")
		if lvl := e["@level"]; lvl != "debug" && lvl != "trace" && !outageNotice {
			t.Errorf("entry at level %v: %v", lvl, e)
		}
		msg, _ := e["@message"].(string)
		method, _ := e["method"].(string)
		u, _ := e["url"].(string)
		switch msg {
		case "dbcloud API request":
			requests[seen{method, u}] = true
			if h, ok := e["headers"].(map[string]any); ok {
				if h["Authorization"] == "Basic ***" {
					sawAuthHeader = true
				}
			}
			if b, _ := e["body"].(string); strings.Contains(b, `"password":"***"`) {
				sawMaskedPassword = true
			}
		case "dbcloud API response":
			if s, ok := e["status"].(float64); ok {
				statuses[s] = true
			}
		case "dbcloud API: retrying request":
			sawRetry = true
		}
	}
	base := srv.URL + "/v1/projects/" + testProjectID + "/services"
	for _, want := range []seen{{"POST", base}, {"POST", base + "/svc1/updatePassword"}, {"GET", base + "/svc1"}} {
		if !requests[want] {
			t.Errorf("no request log for %s %s in:\n%s", want.method, want.url, logs)
		}
	}
	for _, s := range []float64{202, 400, 204, 503, 409} {
		if !statuses[s] {
			t.Errorf("no response log with status %v", s)
		}
	}
	if !sawAuthHeader || !sawMaskedPassword || !sawRetry {
		t.Errorf("auth header logged masked: %v; password masked in the body: %v; retry logged: %v", sawAuthHeader, sawMaskedPassword, sawRetry)
	}
	if !strings.Contains(logs, "is too weak") || !strings.Contains(logs, "service is not ready") {
		t.Errorf("the masked bodies should still be logged:\n%s", logs)
	}
}

func TestMaskBody(t *testing.T) {
	const secret = "SK-0123456789"
	cases := []struct {
		name, in string
		secrets  []string
		want     string // JSON compared structurally when the input is JSON, else exactly
	}{
		{"flat", `{"name":"db","password":"hunter2"}`, nil, `{"name":"db","password":"***"}`},
		{"case and variants", `{"Password":"a","INITIAL_PASSWORD":"b","new_password":"c","client_secret":"d","api_token":"e","secret_key":"f","access_key":"g"}`, nil,
			`{"Password":"***","INITIAL_PASSWORD":"***","new_password":"***","client_secret":"***","api_token":"***","secret_key":"***","access_key":"***"}`},
		{"nested object", `{"service":{"name":"db","initial_password":"p1","endpoint":{"host":"h","port":5432}}}`, nil,
			`{"service":{"name":"db","initial_password":"***","endpoint":{"host":"h","port":5432}}}`},
		{"array of objects", `[{"id":"a","password":"p1"},{"id":"b","nested":[{"password":"p2"}]}]`, nil,
			`[{"id":"a","password":"***"},{"id":"b","nested":[{"password":"***"}]}]`},
		{"password holding an object", `{"password":{"value":"p1"}}`, nil, `{"password":"***"}`},
		{"secret string inside values", `{"details":"key ` + secret + ` refused","list":["` + secret + `"]}`, []string{secret},
			`{"details":"key *** refused","list":["***"]}`},
		{"non-JSON with the secret", "<html>denied for " + secret + "</html>", []string{secret}, "<html>denied for ***</html>"},
		{"non-JSON, no secret", "plain text", []string{secret}, "plain text"},
		{"empty secret ignored", `{"a":"b"}`, []string{""}, `{"a":"b"}`},
		{"no body", "", []string{secret}, ""},
		{"scalar JSON", `"` + secret + `"`, []string{secret}, `"***"`},
	}
	for _, tc := range cases {
		got := MaskBody([]byte(tc.in), tc.secrets...)
		if json.Valid([]byte(tc.want)) && tc.want != "" {
			var g, w any
			if err := json.Unmarshal([]byte(got), &g); err != nil {
				t.Errorf("%s: MaskBody = %q is not JSON", tc.name, got)
				continue
			}
			_ = json.Unmarshal([]byte(tc.want), &w)
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Errorf("%s: MaskBody = %s, want %s", tc.name, gb, wb)
			}
		} else if got != tc.want {
			t.Errorf("%s: MaskBody = %q, want %q", tc.name, got, tc.want)
		}
		for _, s := range append(tc.secrets, "hunter2", "p1", "p2") {
			if s != "" && strings.Contains(got, s) && !strings.Contains(tc.want, s) {
				t.Errorf("%s: %q survived in %q", tc.name, s, got)
			}
		}
	}
}

func TestMaskBodySecretNeedingJSONEscapes(t *testing.T) {
	secret := `s3<cr>t&"x\y`
	enc, _ := json.Marshal(map[string]string{"details": "bad key " + secret})
	got := MaskBody(enc, secret)
	if strings.Contains(got, "s3") || strings.Contains(got, "cr") {
		t.Errorf("MaskBody = %q still holds the escaped secret", got)
	}
}

func TestMaskBodyTruncates(t *testing.T) {
	long := `{"items":"` + strings.Repeat("ü", 5000) + `"}`
	got := MaskBody([]byte(long))
	if len(got) > maxLoggedBody+len("...(truncated)") || !strings.HasSuffix(got, "...(truncated)") {
		t.Errorf("MaskBody of %d bytes gave %d bytes", len(long), len(got))
	}
	if strings.ToValidUTF8(got, "?") != got {
		t.Errorf("truncation split a character")
	}
	// A secret is masked even when it sits beyond the cut.
	secret := "SECRET-AT-THE-END"
	got = MaskBody([]byte(strings.Repeat("x", 5000)+secret), secret)
	if strings.Contains(got, "SECRET") {
		t.Errorf("secret survived")
	}
}

func TestMaskHeaders(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("ak:sk"))
	h := http.Header{}
	h.Set("Authorization", "Basic "+basic)
	h.Set("Proxy-Authorization", "Bearer tok123")
	h.Set("Cookie", "session=abc")
	h.Set("User-Agent", "terraform-provider-dbcloud/dev")
	h.Set("Content-Type", "application/json")
	h.Add("Accept", "application/json")
	h.Add("Accept", "text/plain")
	got := MaskHeaders(h)
	want := map[string]string{
		"Authorization":       "Basic ***",
		"Proxy-Authorization": "Bearer ***",
		"Cookie":              "***",
		"User-Agent":          "terraform-provider-dbcloud/dev",
		"Content-Type":        "application/json",
		"Accept":              "application/json,text/plain",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("MaskHeaders = %v, want %v", got, want)
	}
	// A bare credential with no scheme is masked whole.
	h2 := http.Header{"Authorization": []string{"rawtoken123"}}
	if got := MaskHeaders(h2)["Authorization"]; got != "***" {
		t.Errorf("bare Authorization logged as %q", got)
	}
	if h.Get("Authorization") != "Basic "+basic {
		t.Errorf("MaskHeaders changed its input")
	}
	if len(MaskHeaders(nil)) != 0 {
		t.Errorf("MaskHeaders(nil) not empty")
	}
}

func TestMaskBodyCollectsMaskedValues(t *testing.T) {
	out, masked := maskBody([]byte(`{"password":"longer-pw","nested":{"token":["tok-1","x"]},"name":"db"}`), nil)
	if strings.Contains(out, "longer-pw") || strings.Contains(out, "tok-1") {
		t.Errorf("maskBody = %q", out)
	}
	if !slices.Contains(masked, "longer-pw") || !slices.Contains(masked, "tok-1") || slices.Contains(masked, "db") || slices.Contains(masked, "x") {
		t.Errorf("masked values = %q", masked)
	}
}

// With the provider's log off (no TF_LOG* variable: logging.QuietUnobserved), no request or answer
// is logged, and so none is masked: a plan that lists thousands of services does not mask them for
// nothing. With it on, both are (TestLogsNeverCarrySecrets).
func TestNoRequestLogWhenTheProviderLogIsOff(t *testing.T) {
	for _, tc := range []struct {
		level string
		logs  bool
	}{{"off", false}, {"DEBUG", true}} {
		t.Run(tc.level, func(t *testing.T) {
			t.Setenv(logging.ProviderLevelVariable, tc.level)
			c, _ := newTestClient(t, func(w http.ResponseWriter, _ *http.Request) {
				writeJSON(w, 200, `[{"service_id":"svc1","name":"db","status":"READY"}]`)
			})
			var buf bytes.Buffer
			svcs, err := c.ListServices(tflogtest.RootLogger(context.Background(), &buf))
			if err != nil || len(svcs) != 1 || svcs[0].Name == nil || *svcs[0].Name != "db" {
				t.Fatalf("ListServices = %+v, %v", svcs, err)
			}
			if logged := strings.Contains(buf.String(), "dbcloud API response"); logged != tc.logs {
				t.Errorf("with %s=%s, response logged = %v, want %v:\n%s", logging.ProviderLevelVariable, tc.level, logged, tc.logs, buf.String())
			}
		})
	}
}
