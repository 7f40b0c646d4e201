package provider

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// sameValues decides whether a service Read may leave the state as it is: every attribute, the
// embedded fields and nested values included, must be equal.
func TestSameValues(t *testing.T) {
	base := serviceResourceModel{serviceFields: serviceFields{
		ID: types.StringValue("svc1"), Name: types.StringValue("orders"), CPUMillis: types.Int64Value(1000),
		Addons: types.SetValueMust(types.StringType, []attr.Value{types.StringValue("time-series")}),
	}, DeletionProtection: types.BoolValue(true)}
	same := base
	if !sameValues(&same, &base) {
		t.Fatal("a copy is not the same")
	}
	for name, change := range map[string]func(m *serviceResourceModel){
		"embedded field": func(m *serviceResourceModel) { m.Name = types.StringValue("orders-console") },
		"number":         func(m *serviceResourceModel) { m.CPUMillis = types.Int64Value(2000) },
		"null":           func(m *serviceResourceModel) { m.CPUMillis = types.Int64Null() },
		"set element": func(m *serviceResourceModel) {
			m.Addons = types.SetValueMust(types.StringType, []attr.Value{types.StringValue("ai")})
		},
		"resource-only field": func(m *serviceResourceModel) { m.DeletionProtection = types.BoolValue(false) },
	} {
		got := base
		change(&got)
		if sameValues(&got, &base) || sameValues(&base, &got) {
			t.Errorf("%s: a changed model is the same", name)
		}
	}
	if base.Name.ValueString() != "orders" {
		t.Error("sameValues changed its argument")
	}
}

// richServiceState is a dbcloud_service state with every kind of value the model holds: strings,
// numbers, booleans, the addons set, the forked_from object, the fork block, timeouts, nulls, and an
// unknown (a state never holds one, but the readers must convert it as the framework does).
func richServiceState(t *testing.T) tfsdk.State {
	t.Helper()
	ctx := t.Context()
	state := resourceState(t, NewServiceResource())
	var svc api.Service
	raw := `{"service_id":"s1","project_id":"p1","name":"n","region_code":"eu-west-1","service_type":"TIMESCALEDB",
	  "created":"2025-01-31T12:00:00Z","status":"READY",
	  "resources":[{"id":"r","spec":{"cpu_millis":2000,"memory_gbs":8,"volume_type":"gp3"}}],
	  "metadata":{"environment":"PROD"},"endpoint":{"host":"h","port":5432},
	  "connection_pooler":{"endpoint":{"host":"p","port":6432}},
	  "forked_from":{"project_id":"p1","service_id":"s0","is_standby":false}}`
	if err := json.Unmarshal([]byte(raw), &svc); err != nil {
		t.Fatal(err)
	}
	m := serviceResourceModel{serviceFields: flattenService(&svc), Password: types.StringValue("secret"),
		PasswordWO: types.StringNull(), PasswordWOVersion: types.Int64Value(3), DeletionProtection: types.BoolValue(true),
		AllowReplacement: types.BoolNull(), InitialPassword: types.StringUnknown(),
		Fork: types.ObjectValueMust(serviceForkAttrTypes, map[string]attr.Value{"source_service_id": types.StringValue("s0"),
			"strategy": types.StringValue("PITR"), "target_time": types.StringValue("2025-01-31T11:00:00Z")})}
	if d := state.GetAttribute(ctx, path.Root("timeouts"), &m.Timeouts); d.HasError() {
		t.Fatal(d)
	}
	if d := state.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
	}
	if d := state.SetAttribute(ctx, path.Root("timeouts").AtName("create"), types.StringValue("45m")); d.HasError() {
		t.Fatal(d)
	}
	return state
}

// attrs reads a top-level attribute as the framework's GetAttribute does, for every attribute of a
// service's state and of a null state, and says so when the attribute does not exist.
func TestAttrsReadAsGetAttribute(t *testing.T) {
	ctx := t.Context()
	for name, state := range map[string]tfsdk.State{"state": richServiceState(t), "null state": resourceState(t, NewServiceResource())} {
		a := attrsOf(state.Raw)
		for attrName, a0 := range state.Schema.GetAttributes() {
			var got, want attr.Value
			var d diag.Diagnostics
			switch a0.GetType() {
			case types.StringType:
				got, d = a.string(ctx, attrName)
			case types.BoolType:
				got, d = a.bool(ctx, attrName)
			case types.Int64Type:
				got, d = a.int64(ctx, attrName)
			default:
				continue
			}
			if d.HasError() {
				t.Fatalf("%s: %s: %v", name, attrName, d)
			}
			if d := state.GetAttribute(ctx, path.Root(attrName), &want); d.HasError() {
				t.Fatal(d)
			}
			if !got.Equal(want) {
				t.Errorf("%s: %s = %v, GetAttribute reads %v", name, attrName, got, want)
			}
		}
		if null := name == "null state"; a.null("fork") != null || a.null("name") != null || a.null("timeouts") != null {
			t.Errorf("%s: null(fork) = %v, null(name) = %v, null(timeouts) = %v", name, a.null("fork"), a.null("name"), a.null("timeouts"))
		}
		if !a.null("no_such_attribute") {
			t.Errorf("%s: an attribute the state does not have is not null", name)
		}
	}
	if _, d := attrsOf(richServiceState(t).Raw).string(ctx, "no_such_attribute"); !d.HasError() {
		t.Error("an attribute the state does not have is read without an error")
	}
	if _, d := attrsOf(richServiceState(t).Raw).bool(ctx, "name"); !d.HasError() {
		t.Error("a string attribute is read as a bool without an error")
	}
}

// getState decodes a state into its model exactly as the framework's State.Get does, and leaves a
// model that does not fit the schema to State.Get (and its error).
func TestGetStateIsStateGet(t *testing.T) {
	ctx := t.Context()
	state := richServiceState(t)
	var got, want serviceResourceModel
	if d := getState(ctx, state, &got); d.HasError() {
		t.Fatal(d)
	}
	if d := state.Get(ctx, &want); d.HasError() {
		t.Fatal(d)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("getState = %+v\nState.Get = %+v", got, want)
	}
	create, _ := got.Timeouts.Create(ctx, 0)
	if !got.InitialPassword.IsUnknown() || got.Fork.IsNull() || got.ForkedFrom.IsNull() || got.Password.ValueString() != "secret" || create.Minutes() != 45 {
		t.Errorf("getState lost values: %+v", got)
	}
	var other vpcModel
	if d := getState(ctx, state, &other); !d.HasError() {
		t.Error("a VPC model decoded from a service state without an error")
	}
}

// setState writes a model into a state exactly as the framework's State.Set does, and leaves a model
// that does not fit the schema to State.Set (and its error).
func TestSetStateIsStateSet(t *testing.T) {
	ctx := t.Context()
	var m serviceResourceModel
	if d := getState(ctx, richServiceState(t), &m); d.HasError() {
		t.Fatal(d)
	}
	m.Name = types.StringValue("renamed")
	m.InitialPassword = types.StringNull()
	got, want := resourceState(t, NewServiceResource()), resourceState(t, NewServiceResource())
	if d := setState(ctx, &got, &m); d.HasError() {
		t.Fatal(d)
	}
	if d := want.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
	}
	if !got.Raw.Equal(want.Raw) {
		diffs, _ := got.Raw.Diff(want.Raw)
		t.Errorf("setState and State.Set differ: %v", diffs)
	}
	other := vpcModel{vpcFields: vpcFields{ID: types.StringValue("1")}}
	if d := setState(ctx, &got, &other); !d.HasError() {
		t.Error("a VPC model written into a service state without an error")
	}
	bad := m
	bad.Addons = types.SetValueMust(types.Int64Type, []attr.Value{types.Int64Value(1)}) // not the schema's type
	if d := setState(ctx, &got, &bad); !d.HasError() {
		t.Error("a value of another type written without an error")
	}
}

// connectionURI is the vendor's form, and null or unknown with its endpoint.
func TestConnectionURI(t *testing.T) {
	got := connectionURI(types.StringValue("svc.example.test"), types.Int64Value(5432))
	if want := "postgresql://tsdbadmin@svc.example.test:5432/tsdb?sslmode=require"; got.ValueString() != want {
		t.Errorf("connectionURI = %s, want %s", got, want)
	}
	if v6 := connectionURI(types.StringValue("::1"), types.Int64Value(6432)); v6.ValueString() != "postgresql://tsdbadmin@[::1]:6432/tsdb?sslmode=require" {
		t.Errorf("IPv6 host: %s", v6)
	}
	if !connectionURI(types.StringNull(), types.Int64Null()).IsNull() || !connectionURI(types.StringValue(""), types.Int64Value(1)).IsNull() {
		t.Error("no endpoint: want null")
	}
	if !connectionURI(types.StringUnknown(), types.Int64Value(1)).IsUnknown() || !connectionURI(types.StringValue("h"), types.Int64Unknown()).IsUnknown() {
		t.Error("endpoint not known yet: want unknown")
	}
}

// uriOf checks that attribute uri of addr is the connection string of its host and port attributes.
func uriOf(addr, uri, host, port string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		a := rs.Primary.Attributes
		want := "postgresql://tsdbadmin@" + net.JoinHostPort(a[host], a[port]) + "/tsdb?sslmode=require"
		if a[host] == "" || a[uri] != want {
			return fmt.Errorf("%s.%s = %q, want %q", addr, uri, a[uri], want)
		}
		if _, err := strconv.Atoi(a[port]); err != nil {
			return fmt.Errorf("%s.%s = %q: %w", addr, port, a[port], err)
		}
		return nil
	}
}

const uriConfig = `
resource "dbcloud_service" "db" {
  name                      = %q
  connection_pooler_enabled = %t
}
resource "dbcloud_read_replica_set" "ro" {
  service_id = dbcloud_service.db.id
  name       = "ro"
  cpu_millis = 500
  memory_gbs = 2
}
data "dbcloud_service" "db" {
  id = dbcloud_service.db.id
  depends_on = [dbcloud_read_replica_set.ro]
}
data "dbcloud_services" "all" {
  depends_on = [dbcloud_read_replica_set.ro]
}
data "dbcloud_read_replica_set" "ro" {
  service_id = dbcloud_service.db.id
  id         = dbcloud_read_replica_set.ro.id
}
`

// connection_uri and pooler_connection_uri are in state, in the data sources and after import, and stay
// known in the plan of an update that does not move the endpoint.
func TestAccConnectionURI(t *testing.T) {
	srv := newTestEmulator(t)
	const svc, rs = "dbcloud_service.db", "dbcloud_read_replica_set.ro"
	cfg := func(name string, pooler bool) string {
		return providerBlock(srv) + fmt.Sprintf(uriConfig, name, pooler)
	}
	same := func(a, attrA, b, attrB string) statecheck.StateCheck {
		return statecheck.CompareValuePairs(a, tfjsonpath.New(attrA), b, tfjsonpath.New(attrB), svcCompareSame{})
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: cfg("uri", true),
			Check: resource.ComposeAggregateTestCheckFunc(
				uriOf(svc, "connection_uri", "hostname", "port"),
				uriOf(svc, "pooler_connection_uri", "pooler_hostname", "pooler_port"),
				uriOf(rs, "connection_uri", "hostname", "port"),
				uriOf("data.dbcloud_service.db", "connection_uri", "hostname", "port"),
				uriOf("data.dbcloud_read_replica_set.ro", "connection_uri", "hostname", "port"),
			),
			ConfigStateChecks: []statecheck.StateCheck{
				same("data.dbcloud_service.db", "connection_uri", svc, "connection_uri"),
				same("data.dbcloud_service.db", "pooler_connection_uri", svc, "pooler_connection_uri"),
				same("data.dbcloud_read_replica_set.ro", "connection_uri", rs, "connection_uri"),
				statecheck.ExpectKnownValue("data.dbcloud_services.all", tfjsonpath.New("services").AtSliceIndex(0).AtMapKey("connection_uri"),
					knownvalue.StringRegexp(uriPattern)),
				statecheck.ExpectKnownValue("data.dbcloud_service.db", tfjsonpath.New("read_replica_sets").AtSliceIndex(0).AtMapKey("connection_uri"),
					knownvalue.StringRegexp(uriPattern)),
			},
		},
		// A rename moves no endpoint: both strings stay known in the plan.
		resource.TestStep{
			Config: cfg("uri-renamed", true),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(svc, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(svc, tfjsonpath.New("connection_uri"), knownvalue.StringRegexp(uriPattern)),
				plancheck.ExpectKnownValue(svc, tfjsonpath.New("pooler_connection_uri"), knownvalue.StringRegexp(uriPattern)),
			}},
		},
		// Pooler off: its connection string is null in the plan already.
		resource.TestStep{
			Config: cfg("uri-renamed", false),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(svc, tfjsonpath.New("connection_uri"), knownvalue.StringRegexp(uriPattern)),
				plancheck.ExpectKnownValue(svc, tfjsonpath.New("pooler_connection_uri"), knownvalue.Null()),
			}},
			Check: uriOf(svc, "connection_uri", "hostname", "port"),
		},
		resource.TestStep{ResourceName: svc, ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"password", "password_wo_version", "initial_password", "timeouts"}},
		resource.TestStep{ResourceName: rs, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"},
			ImportStateIdFunc: func(s *terraform.State) (string, error) {
				r := s.RootModule().Resources[rs]
				return r.Primary.Attributes["service_id"] + "/" + r.Primary.ID, nil
			}},
	))
}

// uriPattern matches a connection string of the vendor's form.
var uriPattern = regexp.MustCompile(`^postgresql://tsdbadmin@[^:/@]+:[0-9]+/tsdb\?sslmode=require$`)

// readOnlyConnectionURI adds the vendor's option, percent-encoded as libpq reads it.
func TestReadOnlyConnectionURI(t *testing.T) {
	got := readOnlyConnectionURI(connectionURI(types.StringValue("db.example.com"), types.Int64Value(5432)))
	want := "postgresql://tsdbadmin@db.example.com:5432/tsdb?sslmode=require&options=-c%20tsdb_admin.read_only_connection%3Dtrue"
	if got.ValueString() != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if u, err := url.Parse(got.ValueString()); err != nil || u.Query().Get("options") != "-c tsdb_admin.read_only_connection=true" {
		t.Errorf("options decode to %q (%v)", u.Query().Get("options"), err)
	}
	if !readOnlyConnectionURI(types.StringNull()).IsNull() || !readOnlyConnectionURI(types.StringUnknown()).IsUnknown() {
		t.Error("null and unknown are kept")
	}
}
