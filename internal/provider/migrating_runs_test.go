package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Moves of single objects from the official provider through each CLI of the matrix (migrating_test.go
// has the harness and the guide's stack): the refusals, the trace log, a password_wo user, paused
// services and drift.

// service creates a running TimescaleDB service of 1000/4 in us-east-1 through the API, as the official
// provider creates them, and answers its id and initial password.
func (m *migration) service(name string) (id, password string) {
	m.t.Helper()
	body := api.ServiceCreate{Name: name, Addons: &[]api.Addon{api.TimeSeries}, RegionCode: ptr("us-east-1")}
	body.SetSizes(1000, 4)
	svc, err := testClient(m.t, m.srv).CreateService(context.Background(), body)
	if err != nil {
		m.t.Fatalf("creating service %s: %v", name, err)
	}
	netTestWaitService(m.t, m.srv, deref(svc.ServiceID), api.READY)
	return deref(svc.ServiceID), deref(svc.InitialPassword)
}

// workdir is a fresh working directory of the migration's CLI and providers with a state and a
// configuration (the terraform block with both providers is added).
func (m *migration) workdir(t *testing.T, state, config string) *tfWorkdir {
	t.Helper()
	w := newTF(t, tfOptions{cliConfig: m.rc})
	w.env = m.settings()
	writeFile(t, filepath.Join(w.dir, "terraform.tfstate"), state)
	w.writeFile("main.tf", `terraform {
  required_providers {
    dbcloud   = { source = "dbcloud/dbcloud" }
    timescale = { source = "timescale/timescale" }
  }
}
`+config)
	if m.official == "" {
		w.must("init", "-input=false")
	}
	return w
}

// A read replica, a schema version no release wrote, another type of the official provider and a
// Transit Gateway attachment are each refused with an error that says what to do, and so is a moved
// service whose configuration would replace it (the replacement guard); nothing is moved (the state
// still holds the source object) and nothing is written to the API.
func TestAccMigrating_refused(t *testing.T) {
	m := newMigration(t)
	id, _ := m.service("orders")
	service := func(version int, set map[string]any) string {
		return timescaleStateFile(t, m.host, timescaleObject{typ: "timescale_service", name: "db", version: version, attrs: timescaleServiceAttrs(id, "orders", set)})
	}
	const toService = `
resource "dbcloud_service" "db" {
  name = "orders"
}

moved {
  from = %s
  to   = dbcloud_service.db
}
`
	for _, c := range []struct {
		name, state, config string
		want                []string
	}{
		{"read replica", service(0, map[string]any{"read_replica_source": "ab12cd34ef", "read_replica_nodes": 1}),
			fmt.Sprintf(toService, "timescale_service.db"),
			[]string{"A read replica does not move to dbcloud_service", "is a read replica of service ab12cd34ef", "dbcloud_read_replica_set", "destroy = false"}},
		{"unknown version", service(4, nil), fmt.Sprintf(toService, "timescale_service.db"),
			[]string{"Unknown timescale_service schema version 4", "import"}},
		// A typo in the rewritten configuration meets the replacement guard, as for any service.
		{"a replacement", service(0, nil), strings.Replace(fmt.Sprintf(toService, "timescale_service.db"), `name = "orders"`, `name        = "orders"
  region_code = "eu-west-1"`, 1),
			[]string{"Change would delete the service and its data", `region_code from "us-east-1" to "eu-west-1"`}},
		{"another type", timescaleStateFile(t, m.host, timescaleObject{typ: "timescale_vpcs", name: "main", attrs: timescaleVPCAttrs(1234, "main", "10.0.0.0/16")}),
			fmt.Sprintf(toService, "timescale_vpcs.main"),
			[]string{"Cannot move timescale_vpcs to dbcloud_service", "A timescale_vpcs moves to dbcloud_vpc"}},
		{"transit gateway", timescaleStateFile(t, m.host, timescaleObject{typ: "timescale_peering_connection", name: "tgw", version: 1,
			attrs: timescalePeeringAttrs(55, 1234, map[string]any{"peer_vpc_id": nil, "peer_tgw_id": "tgw-0123456789abcdef0", "peering_type": "tgw"})}),
			`
resource "dbcloud_vpc_peering" "tgw" {
  vpc_id           = "1234"
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "tgw-0123456789abcdef0"
}

moved {
  from = timescale_peering_connection.tgw
  to   = dbcloud_vpc_peering.tgw
}
`, []string{"A Transit Gateway attachment does not move", "keep the attachment on the timescale provider"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := m.workdir(t, c.state, c.config)
			m.srv.ResetRequests()
			out := strings.Join(strings.Fields(w.runWant(1, "plan", "-input=false")), " ")
			for _, want := range c.want {
				if !strings.Contains(out, want) {
					t.Errorf("the plan's error does not say %q:\n%s", want, out)
				}
			}
			if list := w.must("state", "list"); !strings.Contains(list, "timescale_") || strings.Contains(list, "dbcloud_") {
				t.Errorf("the state after the refused move:\n%s", list)
			}
			if wr := writes(m.srv); len(wr) > 0 {
				t.Errorf("the refused move wrote to the API: %v", wr)
			}
		})
	}
}

// The move under TF_LOG=trace: the admin password of the old state (which the CLI sends in the clear)
// is in no line of the log, the mover logs the source address the CLI sent (the OpenTofu registry's
// from OpenTofu), and the password is kept in the state as initial_password. A password_wo user keeps
// write-only semantics: no password in the state, password_wo_version moved, the next plan empty, and
// a new version sets the new password.
func TestAccMigrating_traceLog(t *testing.T) {
	m := newMigration(t)
	orders, password := m.service("orders")
	billing, _ := m.service("billing")
	state := timescaleStateFile(t, m.host,
		timescaleObject{typ: "timescale_service", name: "orders", attrs: timescaleServiceAttrs(orders, "orders", map[string]any{"password": password})},
		timescaleObject{typ: "timescale_service", name: "billing", attrs: timescaleServiceAttrs(billing, "billing", map[string]any{"password": nil, "password_wo_version": 1})},
	)
	const config = `
resource "dbcloud_service" "orders" {
  name = "orders"
}

moved {
  from = timescale_service.orders
  to   = dbcloud_service.orders
}

resource "dbcloud_service" "billing" {
  name                = "billing"
  password_wo         = "billing-password-%d"
  password_wo_version = %d
}

moved {
  from = timescale_service.billing
  to   = dbcloud_service.billing
}
`
	w := m.workdir(t, state, fmt.Sprintf(config, 1, 1))
	trace := *w
	trace.env = append(append([]string{}, w.env...), "TF_LOG=trace")
	log, err := trace.run("apply", "-auto-approve", "-input=false") // stdout and stderr, where the log is
	if err != nil || !strings.Contains(log, "Resources: 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("the move under TF_LOG=trace: %v\n%s", err, tail(log, 40))
	}
	if strings.Contains(log, password) {
		t.Errorf("the admin password is in the trace log:\n%s", tail(lineWith(log, password), 5))
	}
	for _, want := range []string{"source_provider_address=" + m.host + "/timescale/timescale", "source_type=timescale_service"} {
		if !strings.Contains(log, want) {
			t.Errorf("the trace log does not say %s", want)
		}
	}
	m.w = w
	objs := m.movedObjects()
	if o := objs["dbcloud_service.orders"]; o.values["initial_password"] != password || o.sensitive["initial_password"] != true {
		t.Errorf("orders: initial_password kept %v, sensitive %v", o.values["initial_password"] == password, o.sensitive["initial_password"])
	}
	if o := objs["dbcloud_service.billing"]; o.values["initial_password"] != nil || o.values["password"] != nil || o.values["password_wo"] != nil ||
		!equalPlain(o.values["password_wo_version"], 1) {
		t.Errorf("billing (password_wo): %v", o.values)
	}
	w.runWant(0, "plan", "-detailed-exitcode", "-input=false")
	w.writeFile("main.tf", strings.Replace(readFile(t, filepath.Join(w.dir, "main.tf")), `password_wo         = "billing-password-1"
  password_wo_version = 1`, `password_wo         = "billing-password-2"
  password_wo_version = 2`, 1))
	w.must("apply", "-auto-approve", "-input=false")
	if got := m.srv.ServicePassword(testProjectID, billing); got != "billing-password-2" {
		t.Errorf("billing's password after a new password_wo_version: %q", got)
	}
	emptyPlanThenCleanDestroy(t, m.srv, w, "the moved services")
}

// Drift: what the console changed since the official provider last refreshed shows in the plan of the
// move as a change of the moved object (the configuration is as before); a service paused in the
// console and in the configuration moves without a change.
func TestAccMigrating_drift(t *testing.T) {
	m := newMigration(t)
	orders, _ := m.service("orders")
	archive, _ := m.service("archive")
	if !m.srv.PauseService(testProjectID, archive) {
		t.Fatal("pausing archive")
	}
	m.srv.UpdateService(testProjectID, orders, func(s *api.Service) {
		(*s.Resources)[0].Spec.CPUMillis, (*s.Resources)[0].Spec.MemoryGbs = ptr(2000), ptr(8) // resized in the console
	})
	state := timescaleStateFile(t, m.host,
		timescaleObject{typ: "timescale_service", name: "orders", attrs: timescaleServiceAttrs(orders, "orders", nil)},
		timescaleObject{typ: "timescale_service", name: "archive", attrs: timescaleServiceAttrs(archive, "archive", map[string]any{"paused": true})},
	)
	w := m.workdir(t, state, `
resource "dbcloud_service" "orders" {
  name       = "orders"
  cpu_millis = 1000
  memory_gbs = 4
}

moved {
  from = timescale_service.orders
  to   = dbcloud_service.orders
}

resource "dbcloud_service" "archive" {
  name   = "archive"
  paused = true
}

moved {
  from = timescale_service.archive
  to   = dbcloud_service.archive
}
`)
	m.srv.ResetRequests()
	out := w.runWant(2, "plan", "-detailed-exitcode", "-input=false")
	for _, want := range []string{
		"# timescale_service.archive has moved to dbcloud_service.archive",
		"# dbcloud_service.orders will be updated in-place", "# (moved from timescale_service.orders)",
		"~ cpu_millis                = 2000 -> 1000", "Plan: 0 to add, 1 to change, 0 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan of the move does not show %q:\n%s", want, out)
		}
	}
	if wr := writes(m.srv); len(wr) > 0 {
		t.Errorf("the plan wrote to the API: %v", wr)
	}
	w.must("apply", "-auto-approve", "-input=false")
	if svc, _ := m.srv.Service(testProjectID, orders); !equalPlain(sizes(svcEmuSize(svc)), []int{1000, 4}) {
		t.Errorf("orders after the apply: %v", sizes(svcEmuSize(svc)))
	}
	if svc, _ := m.srv.Service(testProjectID, archive); deref(svc.Status) != api.PAUSED {
		t.Errorf("archive after the apply: %s", deref(svc.Status))
	}
	w.runWant(0, "plan", "-detailed-exitcode", "-input=false")
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineWith is the lines of s that contain sub.
func lineWith(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
