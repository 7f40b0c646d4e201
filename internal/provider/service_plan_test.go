package provider

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

func TestServiceReplaceRules(t *testing.T) {
	ctx := context.Background()
	set := func(v ...string) types.Set { return serviceAddonsSet(v) }
	ts := types.StringValue("TIMESERIESDB")
	if !addonsReplace(ctx, set("time-series", "ai"), ts, false) {
		t.Error("an addons change of a created service must replace it")
	}
	if addonsReplace(ctx, set("time-series", "ai"), ts, true) {
		t.Error("after import, addons consistent with the service type must be adopted in place")
	}
	if !addonsReplace(ctx, set("ai"), ts, true) {
		t.Error("after import, addons inconsistent with the service type must replace")
	}
	if !addonsReplace(ctx, types.SetUnknown(types.StringType), ts, true) {
		t.Error("unknown addons must replace")
	}
	// Newer servers report an ai service as POSTGRES: after import, ["ai"] is adopted, time-series replaces.
	pg := types.StringValue("POSTGRES")
	if addonsReplace(ctx, set("ai"), pg, true) {
		t.Error(`after import, addons ["ai"] of a POSTGRES service must be adopted in place`)
	}
	if !addonsReplace(ctx, set("time-series"), pg, true) {
		t.Error(`after import, addons ["time-series"] of a POSTGRES service must replace`)
	}

	fork := func(src string) types.Object {
		return types.ObjectValueMust(serviceForkAttrTypes, map[string]attr.Value{
			"source_service_id": types.StringValue(src), "strategy": types.StringNull(), "target_time": types.StringNull(),
		})
	}
	from := func(src string) types.Object {
		return types.ObjectValueMust(serviceForkedFromAttrTypes, map[string]attr.Value{
			"project_id": types.StringValue("p"), "service_id": types.StringValue(src), "is_standby": types.BoolValue(false),
		})
	}
	noFork := types.ObjectNull(serviceForkAttrTypes)
	noFrom := types.ObjectNull(serviceForkedFromAttrTypes)
	if !forkReplace(fork("a"), fork("b"), from("b")) {
		t.Error("a changed fork source must replace")
	}
	if !forkReplace(fork("a"), noFork, noFrom) {
		t.Error("adding a fork block to a service that is no fork must replace")
	}
	if forkReplace(fork("a"), noFork, from("a")) {
		t.Error("after import, a fork block naming the forked_from source must be adopted in place")
	}
	if !forkReplace(noFork, fork("a"), from("a")) {
		t.Error("removing the fork block must replace")
	}
}

// Every validation rule of dbcloud_service fails at plan time and names the attribute; a size the
// API rejects reaches the user with the API's own message.
func TestAccService_validation(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := func(body string) string {
		return providerBlock(srv) + `
resource "dbcloud_service" "test" {
` + body + `
}
`
	}
	cases := []struct {
		name, body, want string
	}{
		{"empty name", `name = ""`, "Attribute name UTF-8 character count must be between 1 and 128, got: 0"},
		{"long name", `name = "` + strings.Repeat("n", 129) + `"`, "Attribute name UTF-8 character count must be between 1 and 128, got: 129"},
		{"unknown addon", `name = "x"
  addons = ["graph"]`, `Attribute addons[Value("graph")] value must be one of`},
		{"cpu without memory", `name = "x"
  cpu_millis = 1000`, `Attribute "memory_gbs" must be specified when "cpu_millis" is specified`},
		{"memory without cpu", `name = "x"
  memory_gbs = 4`, `Attribute "cpu_millis" must be specified when "memory_gbs" is specified`},
		{"cpu not positive", `name = "x"
  cpu_millis = 0
  memory_gbs = 4`, "Attribute cpu_millis value must be at least 1, got: 0"},
		{"memory not positive", `name = "x"
  cpu_millis = 1000
  memory_gbs = -1`, "Attribute memory_gbs value must be at least 1, got: -1"},
		{"environment", `name = "x"
  environment = "STAGING"`, `Attribute environment value must be one of: ["DEV" "PROD"], got: "STAGING"`},
		{"negative ha", `name = "x"
  ha_replicas = -1`, "Attribute ha_replicas value must be at least 0, got: -1"},
		{"sync above ha", `name = "x"
  ha_replicas = 1
  sync_replicas = 2`, "value must be at most sum of ha_replicas"},
		{"fork strategy", `name = "x"
  fork {
    source_service_id = "abcdefghij"
    strategy = "YESTERDAY"
  }`, "Attribute fork.strategy value must be one of"},
		{"fork target_time format", `name = "x"
  fork {
    source_service_id = "abcdefghij"
    strategy = "PITR"
    target_time = "yesterday noon"
  }`, "Attribute fork.target_time must be an RFC 3339 timestamp"},
		{"PITR without target_time", `name = "x"
  fork {
    source_service_id = "abcdefghij"
    strategy = "PITR"
  }`, "fork.target_time is required when fork.strategy is PITR"},
		{"target_time without PITR", `name = "x"
  fork {
    source_service_id = "abcdefghij"
    strategy = "NOW"
    target_time = "2025-01-31T12:00:00Z"
  }`, "fork.target_time is only used with fork.strategy"},
		{"fork without source", `name = "x"
  fork {
    strategy = "NOW"
  }`, "The fork block needs source_service_id"},
		{"password and password_wo", `name = "x"
  password = "a-Passw0rd"
  password_wo = "b-Passw0rd"`, `Attribute "password_wo" cannot be specified when "password" is specified`},
		{"password_wo_version without password_wo", `name = "x"
  password_wo_version = 1`, `Attribute "password_wo" must be specified when "password_wo_version" is specified`},
		{"empty vpc_id", `name = "x"
  vpc_id = ""`, "Attribute vpc_id must be a VPC id: a decimal string such as 1234567890"},
		// Issue 11 point 4: what the API would reject after the service exists fails at plan.
		{"sync_replicas without ha_replicas", `name = "x"
  sync_replicas = 1`, `Attribute "ha_replicas" must be specified when "sync_replicas" is specified`},
		{"vpc_id not decimal", `name = "x"
  vpc_id = "vpc-abc"`, "Attribute vpc_id must be a VPC id: a decimal string such as 1234567890"},
		{"129 non-ASCII characters", `name = "` + strings.Repeat("é", 129) + `"`, "UTF-8 character count must be between 1 and 128, got: 129"},
	}
	steps := make([]resource.TestStep, 0, len(cases)+1)
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      cfg(c.body),
			PlanOnly:    true,
			ExpectError: svcErrRe(c.want),
		})
	}
	// Sizes are the API's to validate: its message reaches the user verbatim, and nothing is left behind.
	steps = append(steps, resource.TestStep{
		Config: cfg(`name = "odd-size"
  cpu_millis = 3000
  memory_gbs = 8`),
		ExpectError: svcErrRe("Could not create service"),
	}, resource.TestStep{
		Config: cfg(`name = "odd-size"
  cpu_millis = 3000
  memory_gbs = 8`),
		ExpectError: svcErrRe("HTTP 400 Bad Request [BAD_REQUEST]: unsupported size 3000/8 (cpu_millis/memory_gbs); accepted sizes:"),
	})
	resource.ParallelTest(t, testCase(t, srv, steps...))
	if n := len(srv.Services(testProjectID)); n != 0 {
		t.Errorf("%d services exist after rejected creates, want 0", n)
	}
}

// A typo in each attribute that forces a replacement, and values the API would refuse after the
// delete: `terraform plan` and `terraform apply`, as a user runs them, fail and name the change; the
// service, its row and its state are intact afterwards, and the plan with the right values is empty.
// Then an allowed replacement warns in the plan that the service and its data will be deleted.
func TestAccService_replacementGuardKeepsData(t *testing.T) {
	skipUnlessAcc(t)
	srv, _ := newPostgresEmulator(t)
	ctx := t.Context()
	const addr = "dbcloud_service.db"
	config := func(region, extra string) string {
		return fmt.Sprintf(`
resource "dbcloud_service" "db" {
  name        = "typo"
  region_code = %q
%s}
`, region, extra)
	}
	right := config("us-east-1", "")
	w := newTFWorkdir(t, srv, right)
	if out, err := w.run("apply", "-auto-approve", "-input=false"); err != nil {
		t.Fatalf("create: %v\n%s", err, tail(out, 30))
	}
	before := w.instance(addr)
	e := pgEndpoint{id: before["id"].(string), host: before["hostname"].(string), port: int(before["port"].(float64)),
		password: before["initial_password"].(string)}
	conn, err := pgLogin(ctx, e.host, e.port, e.password)
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	for _, sql := range []string{"CREATE TABLE notes (v text)", "INSERT INTO notes VALUES ('" + pgRow + "')"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	_ = conn.Close(ctx)

	cases := []struct {
		name, config, change string
	}{
		{"region_code typo", config("us-east-9", ""), `region_code from "us-east-1" to "us-east-9"`},
		{"addons", config("us-east-1", `  addons = ["time-series"]`+"\n"), `addons from [] to ["time-series"]`},
		{"fork of a service that does not exist", config("us-east-1", `  fork {
    source_service_id = "nosuchsvc0"
  }
`), `fork from null (not set) to { source_service_id = "nosuchsvc0" }`},
		{"fork strategy", config("us-east-1", `  fork {
    source_service_id = "nosuchsvc0"
    strategy          = "NOW"
  }
`), `fork from null (not set) to { source_service_id = "nosuchsvc0", strategy = "NOW" }`},
		{"region_code and addons", config("eu-west-9", `  addons = ["ai"]`+"\n"),
			`region_code from "us-east-1" to "eu-west-9", and addons from [] to ["ai"]`},
		// allow_replacement = false is the default written out.
		{"allow_replacement = false", config("us-east-9", "  allow_replacement = false\n"), `region_code from "us-east-1" to "us-east-9"`},
	}
	refused := words("Error: Change would delete the service and its data", cases[0].change)
	for _, c := range cases {
		w.write(c.config)
		want := words("Error: Change would delete the service and its data", c.change, "replaces service "+e.id+" (typo)",
			"Nothing was changed", "set allow_replacement = true")
		for _, cmd := range [][]string{{"plan", "-input=false"}, {"apply", "-auto-approve", "-input=false"}} {
			out, err := w.run(cmd...)
			if err == nil {
				t.Errorf("%s: terraform %s succeeded, want the replacement refused:\n%s", c.name, cmd[0], tail(out, 30))
				continue
			}
			if text := unboxed(out); !want.MatchString(text) {
				t.Errorf("%s: terraform %s: the error does not name the change and what to do:\n%s", c.name, cmd[0], diagnostics(out))
			}
		}
		// The service, its row and its state are as they were.
		if svc, ok := srv.Service(testProjectID, e.id); !ok || deref(svc.Status) != api.READY || deref(svc.RegionCode) != "us-east-1" {
			t.Fatalf("%s: service %s after the refused apply: found %t, status %s, region %s", c.name, e.id, ok,
				deref(svc.Status), deref(svc.RegionCode))
		}
		if after := w.instance(addr); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: the state changed:\nbefore %v\nafter  %v", c.name, before, after)
		}
		if got := pgRowOf(ctx, e); got != pgRow {
			t.Errorf("%s: the row: %q, want %q", c.name, got, pgRow)
		}
	}
	for _, op := range []string{"deleteService", "createService", "forkService"} {
		if n := srv.Calls(op); n != map[string]int{"createService": 1}[op] {
			t.Errorf("%s sent %d times", op, n)
		}
	}

	// Allowed with create_before_destroy: Terraform creates the new service first, so a value the API
	// refuses deletes nothing either.
	w.write(config("us-east-9", "  allow_replacement = true\n  lifecycle {\n    create_before_destroy = true\n  }\n"))
	out, err := w.run("apply", "-auto-approve", "-input=false")
	// Terraform prints the plan's warnings and the apply's error in either order.
	if text := unboxed(out); err == nil || !words("Warning: The service and its data will be deleted").MatchString(text) ||
		!words("Error: Could not create service", "us-east-9").MatchString(text) {
		t.Errorf("allowed, create_before_destroy, a region the API refuses: %v, want the warning and the API's error:\n%s", err, diagnostics(out))
	}
	// The new service's own plan (a create) is the replacement, not a plan that replaces nothing.
	if strings.Contains(out, "allow_replacement is on: the replacement guard is off") {
		t.Errorf("a replacement warned that it replaces nothing:\n%s", diagnostics(out))
	}
	if svc, ok := srv.Service(testProjectID, e.id); !ok || deref(svc.Status) != api.READY {
		t.Fatalf("create_before_destroy: service %s after the failed apply: found %t", e.id, ok)
	}
	if after := w.instance(addr); !reflect.DeepEqual(after, before) {
		t.Errorf("create_before_destroy: the state changed:\nbefore %v\nafter  %v", before, after)
	}
	if got := pgRowOf(ctx, e); got != pgRow {
		t.Errorf("create_before_destroy: the row: %q, want %q", got, pgRow)
	}

	// The right configuration plans nothing.
	w.write(right)
	if out, err := w.run("plan", "-detailed-exitcode", "-input=false"); err != nil {
		t.Errorf("plan with the right region: %v (exit code 2: changes), want an empty plan:\n%s", err, tail(out, 30))
	}

	// Allowed: the plan warns, naming the change, and the apply replaces the service.
	w.write(config("eu-west-1", "  allow_replacement = true\n"))
	warn := words("Warning: The service and its data will be deleted", `region_code from "us-east-1" to "eu-west-1"`,
		"replaces service "+e.id+" (typo)", "the apply deletes the service")
	out, err = w.run("plan", "-input=false")
	if err != nil || !warn.MatchString(unboxed(out)) || refused.MatchString(unboxed(out)) {
		t.Errorf("allowed replacement: plan: %v, want a warning that names the change:\n%s", err, diagnostics(out))
	}
	if out, err := w.run("apply", "-auto-approve", "-input=false"); err != nil || !warn.MatchString(unboxed(out)) {
		t.Fatalf("allowed replacement: apply: %v, want success with the warning:\n%s", err, diagnostics(out))
	}
	if now := w.instance(addr); now["id"] == e.id || now["region_code"] != "eu-west-1" || now["allow_replacement"] != true {
		t.Errorf("allowed replacement: state id %v region %v allow_replacement %v, want a new service in eu-west-1",
			now["id"], now["region_code"], now["allow_replacement"])
	}
	// Terraform's delete ends at 404 or DELETED: a DELETED record may linger in the emulator.
	if svc, ok := srv.Service(testProjectID, e.id); ok && deref(svc.Status) != api.DELETED {
		t.Errorf("allowed replacement: the old service %s is still %s", e.id, deref(svc.Status))
	}
	// Removing allow_replacement changes the state only: no call but reads.
	writes := func() int {
		n := 0
		for _, op := range []string{"createService", "deleteService", "renameService", "resizeService", "setEnvironment", "setHA"} {
			n += srv.Calls(op)
		}
		return n
	}
	before2 := writes()
	w.write(config("eu-west-1", ""))
	if out, err := w.run("apply", "-auto-approve", "-input=false"); err != nil {
		t.Fatalf("removing allow_replacement: %v\n%s", err, diagnostics(out))
	}
	if now := w.instance(addr); now["allow_replacement"] != nil {
		t.Errorf("after removing allow_replacement, state has %v, want null", now["allow_replacement"])
	}
	if n := writes() - before2; n != 0 {
		t.Errorf("removing allow_replacement sent %d state-changing calls, want 0", n)
	}
	if out, err := w.run("destroy", "-auto-approve", "-input=false"); err != nil {
		t.Fatalf("destroy: %v\n%s", err, diagnostics(out))
	}
}

// pgRowOf reads the row of the notes table written by the test ("" and the error when it cannot).
func pgRowOf(ctx context.Context, e pgEndpoint) string {
	conn, err := pgLogin(ctx, e.host, e.port, e.password)
	if err != nil {
		return "login: " + err.Error()
	}
	defer func() { _ = conn.Close(ctx) }()
	var v string
	if err := conn.QueryRow(ctx, "SELECT v FROM notes").Scan(&v); err != nil {
		return "select: " + err.Error()
	}
	return v
}

// unboxed is terraform's output without the box drawn around diagnostics, so that a phrase wrapped
// over two lines of a diagnostic matches words().
func unboxed(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "│╷╵ ")
	}
	return strings.Join(lines, "\n")
}

// The replacement rules' diagnostics, without a server: refused unless allowed (the first replacing
// attribute is the error's path), protected before anything else, and an allowed one warns.
func TestServiceReplacementGuard(t *testing.T) {
	state := serviceResourceModel{
		serviceFields: serviceFields{
			ID: types.StringValue("rp1pz7uyae"), Name: types.StringValue("db"), RegionCode: types.StringValue("us-east-1"),
			Addons: serviceAddonsSet([]string{}),
		},
		Fork: types.ObjectNull(serviceForkAttrTypes), DeletionProtection: types.BoolValue(false),
		AllowReplacement: types.BoolNull(),
	}
	plan := state
	plan.RegionCode = types.StringValue("us-east-9")
	plan.Addons = serviceAddonsSet([]string{"time-series", "ai"})
	replaced := path.Paths{path.Root("region_code"), path.Root("addons")}
	one := func(d diag.Diagnostics) diag.Diagnostic {
		t.Helper()
		if len(d) != 1 {
			t.Fatalf("%d diagnostics, want 1: %v", len(d), d)
		}
		return d[0]
	}
	const change = `Changing region_code from "us-east-1" to "us-east-9", and addons from [] to ["ai", "time-series"]`

	for _, allow := range []types.Bool{types.BoolNull(), types.BoolValue(false)} {
		plan.AllowReplacement = allow
		d := one(replacementGuard(plan, state, replaced))
		pd, ok := d.(diag.DiagnosticWithPath)
		if d.Severity() != diag.SeverityError || d.Summary() != "Change would delete the service and its data" ||
			!ok || !pd.Path().Equal(path.Root("region_code")) {
			t.Errorf("allow_replacement %v: %s %q, want the error on region_code", allow, d.Severity(), d.Summary())
		}
		for _, want := range []string{change, "replaces service rp1pz7uyae (db)", "every database, table and row",
			`fork { source_service_id = "rp1pz7uyae" }`, "dbcloud_service_fork action", "set allow_replacement = true"} {
			if !strings.Contains(d.Detail(), want) {
				t.Errorf("allow_replacement %v: the detail does not say %q:\n%s", allow, want, d.Detail())
			}
		}
	}

	plan.AllowReplacement = types.BoolValue(true)
	d := one(replacementGuard(plan, state, replaced))
	if d.Severity() != diag.SeverityWarning || d.Summary() != "The service and its data will be deleted" ||
		!strings.Contains(d.Detail(), change) {
		t.Errorf("allowed: %s %q %q, want the warning naming the change", d.Severity(), d.Summary(), d.Detail())
	}

	state.DeletionProtection = types.BoolValue(true)
	d = one(replacementGuard(plan, state, replaced))
	if d.Severity() != diag.SeverityError || d.Summary() != "Service is protected against replacement" {
		t.Errorf("protected and allowed: %s %q, want the protection error", d.Severity(), d.Summary())
	}
}

func TestDescribeValue(t *testing.T) {
	fork := func(src, strategy attr.Value) types.Object {
		return types.ObjectValueMust(serviceForkAttrTypes, map[string]attr.Value{
			"source_service_id": src, "strategy": strategy, "target_time": types.StringNull(),
		})
	}
	for _, c := range []struct {
		v    attr.Value
		want string
	}{
		{types.StringValue("us-east-1"), `"us-east-1"`},
		{types.StringNull(), "null (not set)"},
		{types.StringUnknown(), "(known after apply)"},
		{serviceAddonsSet([]string{}), "[]"},
		{serviceAddonsSet([]string{"time-series", "ai"}), `["ai", "time-series"]`},
		{types.ObjectNull(serviceForkAttrTypes), "null (not set)"},
		{fork(types.StringValue("a"), types.StringNull()), `{ source_service_id = "a" }`},
		{fork(types.StringValue("a"), types.StringValue("NOW")), `{ source_service_id = "a", strategy = "NOW" }`},
		{fork(types.StringUnknown(), types.StringNull()), `{ source_service_id = (known after apply) }`},
		{fork(types.StringNull(), types.StringNull()), `{}`},
	} {
		if got := describeValue(c.v); got != c.want {
			t.Errorf("describeValue(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}

// region, addons and fork changes replace the service (allowed by allow_replacement: without it they
// are refused, TestAccService_replacementGuardKeepsData); a name change is a rename in place.
func TestAccService_replacements(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	var id string
	cfg := func(body string) string {
		return providerBlock(srv) + `
resource "dbcloud_service" "src" {
  name = "source"
}
resource "dbcloud_service" "test" {
  allow_replacement = true
` + body + `
}
`
	}
	replace := svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate))
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:           cfg(`name = "r1"` + "\n" + `region_code = "us-east-1"`),
			ConfigPlanChecks: svcEmptyPlan,
			Check:            svcCaptureID(addr, &id),
		},
		resource.TestStep{
			Config:           cfg(`name = "r2"` + "\n" + `region_code = "us-east-1"`),
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check:            svcSameID(addr, &id),
		},
		resource.TestStep{
			Config:           cfg(`name = "r2"` + "\n" + `region_code = "us-east-1"` + "\n" + `addons = ["ai"]`),
			ConfigPlanChecks: replace,
			Check:            resource.ComposeAggregateTestCheckFunc(svcNewID(addr, &id), resource.TestCheckResourceAttr(addr, "service_type", "VECTOR")),
		},
		resource.TestStep{
			Config:           cfg(`name = "r2"` + "\n" + `region_code = "eu-west-1"` + "\n" + `addons = ["ai"]`),
			ConfigPlanChecks: replace,
			Check:            resource.ComposeAggregateTestCheckFunc(svcNewID(addr, &id), resource.TestCheckResourceAttr(addr, "region_code", "eu-west-1")),
		},
		resource.TestStep{
			Config: cfg(`name = "r2"
  fork {
    source_service_id = dbcloud_service.src.id
  }`),
			ConfigPlanChecks: replace,
			Check: resource.ComposeAggregateTestCheckFunc(svcNewID(addr, &id),
				resource.TestCheckResourceAttrPair(addr, "forked_from.service_id", "dbcloud_service.src", "id")),
		},
		resource.TestStep{
			Config: cfg(`name = "r2"
  fork {
    source_service_id = dbcloud_service.src.id
    strategy          = "NOW"
  }`),
			ConfigPlanChecks: replace,
			Check:            svcNewID(addr, &id),
		},
	))
}

func TestAccService_deletionProtection(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	cfg := func(name string, protected bool) string {
		return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "test" {
  name                = %q
  deletion_protection = %t
}
`, name, protected)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg("protected", true), ConfigPlanChecks: svcEmptyPlan},
		resource.TestStep{
			Config:      cfg("protected", true),
			Destroy:     true,
			ExpectError: svcErrRe("has deletion_protection = true, so Terraform will not destroy it"),
		},
		resource.TestStep{
			Config:      strings.Replace(cfg("protected", true), "deletion_protection", "region_code = \"eu-west-1\"\n  deletion_protection", 1),
			PlanOnly:    true,
			ExpectError: svcErrRe(`Changing region_code from "us-east-1" to "eu-west-1" replaces service`),
		},
		resource.TestStep{
			Config:           cfg("protected", false),
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check: func(*terraform.State) error {
				if n := len(liveServices(srv)); n != 1 {
					return fmt.Errorf("%d services (not DELETED), want 1: the protected service must have survived", n)
				}
				return nil
			},
		},
	))
}

// initial_password is kept only while it is the service's password: a service created with
// password_wo (or password) has none in state, and a service whose password the configuration
// sets later loses it in the same apply; the plans after that are empty.
func TestAccService_initialPasswordGoneOncePasswordSet(t *testing.T) {
	srv := newTestEmulator(t)
	base := providerBlock(srv) + `
variable "pw" {
  type      = string
  ephemeral = true
  default   = "chosen-Pw/1"
}
`
	withWO := `
resource "dbcloud_service" "wo" {
  name                = "wo"
  password_wo         = var.pw
  password_wo_version = 1
}
`
	initial := func(addr string, check knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, svcAttr("initial_password"), check)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: base + withWO + `
resource "dbcloud_service" "later" {
  name = "later"
}
`,
			ConfigPlanChecks: svcEmptyPlan,
			ConfigStateChecks: []statecheck.StateCheck{
				initial("dbcloud_service.wo", knownvalue.Null()),
				initial("dbcloud_service.later", knownvalue.NotNull()),
			},
		},
		resource.TestStep{
			// The password of "later" is now Terraform's: its initial_password goes, with no other change.
			Config: base + withWO + `
resource "dbcloud_service" "later" {
  name     = "later"
  password = "chosen-Pw/2"
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("dbcloud_service.later", plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				initial("dbcloud_service.wo", knownvalue.Null()),
				initial("dbcloud_service.later", knownvalue.Null()),
			},
		},
	))
}

// A plan that leaves allow_replacement = true and replaces nothing warns that the guard is off.
func TestAccFirstContact_allowReplacementLeftOnWarns(t *testing.T) {
	skipUnlessAcc(t)
	srv := newTestEmulator(t)
	w := firstContactWorkdir(t, srv, fmt.Sprintf("base_url = %q", srv.URL), `
resource "dbcloud_service" "fc" {
  name              = "first-contact"
  allow_replacement = true
}
`)
	if out, err := w.run("apply", "-input=false", "-no-color", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, tail(out, 30))
	}
	t.Cleanup(func() { _, _ = w.run("destroy", "-input=false", "-no-color", "-auto-approve") })
	out, err := w.run("plan", "-input=false", "-no-color")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, tail(out, 30))
	}
	if !strings.Contains(out, "Warning: allow_replacement is on: the replacement guard is off") {
		t.Errorf("no warning that the guard is off:\n%s", tail(out, 30))
	}
}
