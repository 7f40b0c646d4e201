package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-version"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/pagetest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/thirdparty"
)

// Moving a stack from the vendor's official provider (timescale/timescale) with `moved` blocks
// (move_state.go), driven through each CLI of the matrix (scripts/cli-matrix.md): the official
// provider built from its source (internal/thirdparty) and ours, both through dev_overrides; a state
// written as that provider writes it, checked against its own `providers schema -json`; objects in the
// emulator with the same ids. The guide's worked example (docs/guides/migrating.md) is taken from the
// page as written.

// migration is a working directory where the official provider's state is moved to this provider.
type migration struct {
	t    *testing.T
	w    *tfWorkdir
	srv  *emulatortest.Server
	host string // the registry host the CLI gives providers: registry.opentofu.org for OpenTofu
	// identities: the CLI keeps resource identities (Terraform and OpenTofu 1.12 or later).
	identities bool
	// official is the directory of the official provider's build ("" when the registry installs it).
	official string
	rc       string // the CLI configuration (dev_overrides of both providers)
}

// newMigration makes a working directory with the acceptance tests' CLI, this provider's binary and the
// official provider, whose settings point at a fresh emulator (the DBCLOUD_* environment).
func newMigration(t *testing.T) *migration {
	t.Helper()
	skipUnlessAcc(t)
	m := &migration{t: t, official: thirdPartyProvider(t, thirdparty.Timescale), srv: newTestEmulator(t)}
	m.rc = cliConfigWith(t, map[string]string{thirdparty.Timescale.Source: m.official})
	m.w = newTF(t, tfOptions{cliConfig: m.rc})
	m.w.env = m.settings()
	first, _, _ := strings.Cut(m.w.must("version"), "\n") // "Terraform v1.11.4", "OpenTofu v1.12.6"
	name, v, _ := strings.Cut(first, " v")
	if m.host, m.identities = "registry.terraform.io", false; name == "OpenTofu" {
		m.host = "registry.opentofu.org"
	}
	if have, err := version.NewVersion(v); err != nil {
		t.Fatalf("%s version: %q", m.w.bin, first)
	} else {
		m.identities = !have.LessThan(version.Must(version.NewVersion("1.12.0")))
	}
	return m
}

// settings are the DBCLOUD_* settings of the emulator.
func (m *migration) settings() []string {
	return []string{"DBCLOUD_BASE_URL=" + m.srv.URL, "DBCLOUD_ACCESS_KEY=" + testAccessKey,
		"DBCLOUD_SECRET_KEY=" + testSecretKey, "DBCLOUD_PROJECT_ID=" + testProjectID}
}

// modules installs the configuration's modules (and, from the registry, the official provider when
// there is no build of it: dev_overrides leave nothing else to install).
func (m *migration) modules(w *tfWorkdir) {
	m.t.Helper()
	if m.official == "" {
		w.must("init", "-input=false")
		return
	}
	w.must("get")
}

// writes are the requests of the emulator's log that are not reads.
func writes(srv *emulatortest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// The official provider's schema, as its own `providers schema -json` prints it, once per CLI.
var timescaleSchemas sync.Map // CLI binary -> *timescaleSchema

type timescaleSchema struct {
	once      sync.Once
	resources map[string]timescaleResourceSchema
	err       error
}

type timescaleResourceSchema struct {
	Version int64 `json:"version"`
	Block   struct {
		Attributes map[string]schemaAttribute `json:"attributes"`
	} `json:"block"`
}

type schemaAttribute struct {
	Type       json.RawMessage `json:"type"`
	NestedType *struct {
		Attributes map[string]schemaAttribute `json:"attributes"`
	} `json:"nested_type"`
}

// officialSchema is the official provider's resource schemas (by type), from its `providers schema -json`.
func (m *migration) officialSchema() map[string]timescaleResourceSchema {
	m.t.Helper()
	v, _ := timescaleSchemas.LoadOrStore(m.w.bin, &timescaleSchema{})
	s := v.(*timescaleSchema)
	s.once.Do(func() { s.resources, s.err = m.readOfficialSchema() })
	if s.err != nil {
		m.t.Fatalf("the official provider's schema: %v", s.err)
	}
	return s.resources
}

// readOfficialSchema runs `providers schema -json` in a configuration of the official provider alone
// (no t.Fatal: it runs once for every test of the CLI).
func (m *migration) readOfficialSchema() (map[string]timescaleResourceSchema, error) {
	dir := m.t.TempDir()
	err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte("terraform {\n  required_providers {\n    timescale = { source = \"timescale/timescale\" }\n  }\n}\n"), 0o600)
	if err != nil {
		return nil, err
	}
	w := &tfWorkdir{t: m.t, bin: m.w.bin, dir: dir, opts: tfOptions{cliConfig: m.rc}}
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(w.bin, args...)
		cmd.Dir, cmd.Env = dir, w.environ()
		out, err := cmd.Output()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			err = fmt.Errorf("%s %s: %w\n%s", w.bin, strings.Join(args, " "), err, ee.Stderr)
		}
		return out, err
	}
	if m.official == "" {
		if _, err := run("init", "-input=false", "-no-color"); err != nil {
			return nil, err
		}
	}
	b, err := run("providers", "schema", "-json")
	if err != nil {
		return nil, err
	}
	var out struct {
		Providers map[string]struct {
			Resources map[string]timescaleResourceSchema `json:"resource_schemas"`
		} `json:"provider_schemas"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	for addr, p := range out.Providers {
		if strings.HasSuffix(addr, "/timescale/timescale") {
			return p.Resources, nil
		}
	}
	return nil, fmt.Errorf("no timescale/timescale in the schema: %s", b)
}

// schemaMismatches are the differences between a state object's attributes and its type's schema of the
// official provider: an attribute missing (that provider writes every one, null when unset), one the
// schema does not have, or a value of another type.
func schemaMismatches(attrs map[string]any, schema map[string]schemaAttribute) []string {
	var out []string
	for name := range schema {
		if _, ok := attrs[name]; !ok {
			out = append(out, name+" is missing")
		}
	}
	for name, v := range attrs {
		a, ok := schema[name]
		if !ok {
			out = append(out, name+" is not in the schema")
			continue
		}
		if v == nil {
			continue
		}
		if a.NestedType != nil {
			obj, ok := v.(map[string]any)
			if !ok {
				out = append(out, fmt.Sprintf("%s is %T, not an object", name, v))
				continue
			}
			for _, sub := range schemaMismatches(obj, a.NestedType.Attributes) {
				out = append(out, name+"."+sub)
			}
			continue
		}
		if !valueOfType(v, a.Type) {
			out = append(out, fmt.Sprintf("%s is %v (%T), not of type %s", name, v, v, a.Type))
		}
	}
	slices.Sort(out)
	return out
}

// valueOfType reports whether a JSON value (as encoding/json decodes it) has the schema's type.
func valueOfType(v any, typ json.RawMessage) bool {
	var name string
	if json.Unmarshal(typ, &name) == nil {
		switch v.(type) {
		case string:
			return name == "string"
		case float64:
			return name == "number"
		case bool:
			return name == "bool"
		}
		return false
	}
	var collection []json.RawMessage
	list, ok := v.([]any)
	if json.Unmarshal(typ, &collection) != nil || len(collection) != 2 || !ok {
		return false
	}
	for _, e := range list {
		if e != nil && !valueOfType(e, collection[1]) {
			return false
		}
	}
	return true
}

// checkStateFile fails the test unless every object of a state file of the official provider has its
// type's schema version and attributes (schemaMismatches).
func (m *migration) checkStateFile(state string) {
	m.t.Helper()
	schemas := m.officialSchema()
	var st struct {
		Resources []struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Provider  string `json:"provider"`
			Instances []struct {
				SchemaVersion int64          `json:"schema_version"`
				Attributes    map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(state), &st); err != nil || len(st.Resources) == 0 {
		m.t.Fatalf("the state: %v\n%s", err, state)
	}
	for _, r := range st.Resources {
		schema, ok := schemas[r.Type]
		if want := `provider["` + m.host + `/timescale/timescale"]`; !ok || r.Provider != want {
			m.t.Errorf("%s.%s: type known %v, provider %s, want %s", r.Type, r.Name, ok, r.Provider, want)
			continue
		}
		for i, in := range r.Instances {
			if in.SchemaVersion != schema.Version {
				m.t.Errorf("%s.%s[%d]: schema version %d, the provider's is %d", r.Type, r.Name, i, in.SchemaVersion, schema.Version)
			}
			if bad := schemaMismatches(in.Attributes, schema.Block.Attributes); len(bad) > 0 {
				m.t.Errorf("%s.%s[%d] does not match timescale/timescale's schema: %s", r.Type, r.Name, i, strings.Join(bad, "; "))
			}
		}
	}
}

// The fixtures of the movers' tests (move_state_test.go) are states as the official provider writes
// them: every attribute of its schema, of its types, at its schema versions.
func TestAccMigrating_fixturesMatchSchema(t *testing.T) {
	m := newMigration(t)
	m.checkStateFile(timescaleStateFile(t, m.host,
		timescaleObject{typ: "timescale_service", name: "a", attrs: timescaleServiceAttrs("ab12cd34ef", "a", map[string]any{
			"timeouts": map[string]any{"create": "45m"}, "vpc_id": 1234, "metric_exporter_id": "exp-1", "password_wo_version": 2,
		})},
		timescaleObject{typ: "timescale_vpcs", name: "main", attrs: timescaleVPCAttrs(1234, "main", "10.0.0.0/16")},
		timescaleObject{typ: "timescale_peering_connection", name: "p", version: 1,
			attrs: timescalePeeringAttrs(55, 1234, map[string]any{"peer_cidr_blocks": []any{"10.2.0.0/16"}})},
	))
	// The check itself fails on a state that drifted from the schema (as JSON decodes it).
	var drifted map[string]any
	b, _ := json.Marshal(timescaleServiceAttrs("ab12cd34ef", "a", map[string]any{"milli_cpu": "1000", "cpu_millis": 1000}))
	if err := json.Unmarshal(b, &drifted); err != nil {
		t.Fatal(err)
	}
	bad := schemaMismatches(drifted, m.officialSchema()["timescale_service"].Block.Attributes)
	if len(bad) != 2 || !strings.Contains(bad[0], "cpu_millis is not in the schema") || !strings.Contains(bad[1], "milli_cpu is 1000 (string)") {
		t.Errorf("schemaMismatches of a drifted fixture: %q", bad)
	}
}

// migratingPage is the migrating guide, as the page runner reads it.
func migratingPage(t *testing.T) *pagetest.Page {
	t.Helper()
	page, err := pagetest.ParseFile("../../docs/guides/migrating.md")
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// guideBlocks are the terraform blocks of the migrating guide: the configuration before the move (the
// blocks the page runner skips as the reader's), and the blocks written to files, in page order.
func guideBlocks(t *testing.T) (before, files []pagetest.Block) {
	t.Helper()
	for _, b := range migratingPage(t).Blocks {
		switch {
		case b.Lang != "terraform":
		case strings.HasPrefix(b.Marker["skip"], "the configuration before the move"):
			before = append(before, b)
		case b.Marker["file"] != "":
			files = append(files, b)
		}
	}
	if len(before) != 2 || len(files) != 3 {
		t.Fatalf("the guide has %d blocks before the move and %d written to files; want 2 and 3", len(before), len(files))
	}
	return before, files
}

// setupGuide runs the guide's setup script (its setup= marker: internal/pagetest/setup/migrating.sh)
// as the page runner does (pagetest.Setup), against the test's emulator, with `terraform` the CLI under
// test: it makes the objects and writes the official provider's state into dir. It answers the ids it
// wrote to $PAGETEST_VARS.
func (m *migration) setupGuide(dir string) map[string]string {
	m.t.Helper()
	shims := m.t.TempDir()
	if err := os.Symlink(m.w.bin, filepath.Join(shims, "terraform")); err != nil {
		m.t.Fatal(err)
	}
	env := append(append(os.Environ(), m.settings()...), "TF_CLI_CONFIG_FILE="+m.rc, "PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"))
	ids, err := pagetest.Setup(migratingPage(m.t).Options["setup"], m.t.TempDir(), dir, env, 10*time.Minute)
	if err != nil {
		m.t.Fatalf("the guide's setup: %v", err)
	}
	return ids
}

// writeBlocks writes the page's blocks into w's directory: a block with a file= marker to its file,
// the configuration before the move to main.tf and modules/analytics/main.tf.
func writeBlocks(t *testing.T, w *tfWorkdir, names []string, blocks []pagetest.Block) {
	t.Helper()
	for i, b := range blocks {
		name := filepath.Join(w.dir, names[i])
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, name, b.Text)
	}
}

var movedRe = regexp.MustCompile(`(?m)^\s*# (\S+) has moved to (\S+)$`)

// The guide's worked example, copied from the page: a VPC, a peering and three services (two of a
// count, one in a module) move in one apply with nothing to add, change or destroy, and without one
// request that writes to the API; the state was as the official provider writes it (its schema, and
// its own plan of the configuration before the move says no changes); the next plan is empty, also once
// the old provider has left the configuration; the passwords are kept, sensitive; the copy of the state
// taken before the move takes the stack back to the official provider; the moved objects then update
// and destroy as any other.
func TestAccMigratingGuide_example(t *testing.T) {
	m := newMigration(t)
	before, files := guideBlocks(t)
	ids := m.setupGuide(m.w.dir)
	stateBefore, err := os.ReadFile(filepath.Join(m.w.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	m.checkStateFile(string(stateBefore))
	m.planBefore(before, stateBefore)

	backup := m.w.must("state", "pull")
	writeBlocks(t, m.w, []string{"main.tf", "modules/analytics/main.tf"}, files[:2])
	m.modules(m.w)
	m.srv.ResetRequests()
	m.w.runWant(2, "plan", "-detailed-exitcode", "-input=false") // moves to apply, as the guide says
	out := m.w.must("apply", "-auto-approve", "-input=false")
	if w := writes(m.srv); len(w) > 0 {
		t.Errorf("the plan and the apply of the move wrote to the API: %v", w)
	}
	wantMoves := map[string]string{
		"timescale_vpcs.main": "dbcloud_vpc.main", "timescale_peering_connection.aws": "dbcloud_vpc_peering.aws",
		"timescale_service.app[0]": "dbcloud_service.app[0]", "timescale_service.app[1]": "dbcloud_service.app[1]",
		"module.analytics.timescale_service.db": "module.analytics.dbcloud_service.db",
	}
	moves := map[string]string{}
	for _, mv := range movedRe.FindAllStringSubmatch(out, -1) {
		moves[mv[1]] = mv[2]
	}
	if !equalPlain(moves, wantMoves) || !strings.Contains(out, "Plan: 0 to add, 0 to change, 0 to destroy.") ||
		!strings.Contains(out, "Resources: 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("the apply of the move: moves %v, want %v:\n%s", moves, wantMoves, out)
	}
	m.w.runWant(0, "plan", "-detailed-exitcode", "-input=false")
	m.checkMovedState(ids)
	m.goBack(before, backup)

	// The old provider leaves the configuration (the page's last terraform block): still nothing to do.
	mainTF, err := os.ReadFile(filepath.Join(m.w.dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(mainTF), "\n}\n")
	m.w.writeFile("main.tf", files[2].Text+rest)
	if strings.Contains(files[2].Text+rest, `"timescale/timescale"`) {
		t.Fatal("the guide's last terraform block keeps timescale/timescale")
	}
	m.w.runWant(0, "plan", "-detailed-exitcode", "-input=false")

	// An update of moved objects: the module's service is resized, the VPC renamed.
	m.w.writeFile("main.tf", strings.Replace(files[2].Text+rest, `name        = "main"`, `name        = "main-vpc"`, 1))
	module := filepath.Join(m.w.dir, "modules/analytics/main.tf")
	writeFile(t, module, strings.NewReplacer("cpu_millis  = 2000", "cpu_millis  = 4000", "memory_gbs  = 8", "memory_gbs  = 16").Replace(files[1].Text))
	m.w.must("apply", "-auto-approve", "-input=false")
	if svc, _ := m.srv.Service(testProjectID, ids["ANALYTICS_ID"]); !equalPlain(sizes(svcEmuSize(svc)), []int{4000, 16}) {
		t.Errorf("the moved service was not resized: %v", sizes(svcEmuSize(svc)))
	}
	if vpc, _ := m.srv.VPC(testProjectID, ids["VPC_ID"]); deref(vpc.Name) != "main-vpc" {
		t.Errorf("the moved VPC was not renamed: %q", deref(vpc.Name))
	}
	emptyPlanThenCleanDestroy(t, m.srv, m.w, "the update of the moved stack")
}

func sizes(cpu, mem int) []int { return []int{cpu, mem} }

// oldConfiguration is a working directory of the configuration before the move (the guide's blocks)
// with state, and the official provider's settings (a dummy token: it is configured offline).
func (m *migration) oldConfiguration(before []pagetest.Block, state []byte) *tfWorkdir {
	m.t.Helper()
	w := newTF(m.t, tfOptions{cliConfig: m.rc})
	w.env = append(m.settings(), "TF_VAR_timescale_project_id="+testProjectID, "TF_VAR_timescale_access_token=not-a-token")
	writeBlocks(m.t, w, []string{"main.tf", "modules/analytics/main.tf"}, before)
	writeFile(m.t, filepath.Join(w.dir, "terraform.tfstate"), string(state))
	m.modules(w)
	return w
}

// planBefore: the official provider plans the configuration before the move against the state of the
// setup without a change (-refresh=false: it would read its own API, which is not here).
func (m *migration) planBefore(before []pagetest.Block, state []byte) {
	m.t.Helper()
	w := m.oldConfiguration(before, state)
	if out, code := w.runCode("plan", "-refresh=false", "-detailed-exitcode", "-input=false"); code != 0 {
		m.t.Fatalf("timescale/timescale plans the guide's configuration before the move with changes (exit %d):\n%s", code, out)
	}
}

// goBack is the guide's "Going back": the copy of the state taken before the move, pushed over the
// moved state with the configuration before the move, plans without a change with the official
// provider. The objects are untouched: the move wrote nothing.
func (m *migration) goBack(before []pagetest.Block, backup string) {
	m.t.Helper()
	moved, err := os.ReadFile(filepath.Join(m.w.dir, "terraform.tfstate"))
	if err != nil {
		m.t.Fatal(err)
	}
	w := m.oldConfiguration(before, moved)
	writeFile(m.t, filepath.Join(w.dir, "before-move.tfstate"), backup)
	w.must("state", "push", "-force", "before-move.tfstate")
	if list := w.must("state", "list"); strings.Contains(list, "dbcloud_") || !strings.Contains(list, "module.analytics.timescale_service.db") {
		m.t.Fatalf("the state after the push:\n%s", list)
	}
	if out, code := w.runCode("plan", "-refresh=false", "-detailed-exitcode", "-input=false"); code != 0 {
		m.t.Errorf("after going back, timescale/timescale plans changes (exit %d):\n%s", code, out)
	}
}

// movedObject is an object of the moved state: its values, sensitive values and identity.
type movedObject struct {
	values, sensitive, identity map[string]any
}

// checkMovedState: the state holds the guide's objects under their new types, with their passwords kept
// as initial_password (sensitive as before) and, on a CLI with identities (1.12 or later), the
// identity of each.
func (m *migration) checkMovedState(ids map[string]string) {
	m.t.Helper()
	objs := m.movedObjects()
	vpc := ids["VPC_ID"]
	want := map[string]map[string]any{
		"dbcloud_vpc.main":                    {"id": vpc},
		"dbcloud_vpc_peering.aws":             {"id": ids["PEERING_ID"], "vpc_id": vpc},
		"dbcloud_service.app[0]":              {"id": ids["APP_0_ID"], "project_id": testProjectID},
		"dbcloud_service.app[1]":              {"id": ids["APP_1_ID"], "project_id": testProjectID},
		"module.analytics.dbcloud_service.db": {"id": ids["ANALYTICS_ID"], "project_id": testProjectID},
	}
	if len(objs) != len(want) {
		m.t.Errorf("the moved state holds %d objects, want %d: %v", len(objs), len(want), objs)
	}
	for addr, id := range want {
		o, ok := objs[addr]
		switch {
		case !ok:
			m.t.Errorf("%s is not in the moved state", addr)
			continue
		case o.values["id"] != id["id"]:
			m.t.Errorf("%s: id %v, want %v", addr, o.values["id"], id["id"])
		case m.identities && !equalPlain(o.identity, id):
			m.t.Errorf("%s: identity %v, want %v", addr, o.identity, id)
		}
		if !strings.Contains(addr, "dbcloud_service") {
			continue
		}
		if pw := m.srv.ServicePassword(testProjectID, id["id"].(string)); o.values["initial_password"] != pw || o.sensitive["initial_password"] != true {
			m.t.Errorf("%s: initial_password kept %v (sensitive %v), want the service's password, sensitive",
				addr, o.values["initial_password"] == pw, o.sensitive["initial_password"])
		}
	}
	if objs["dbcloud_service.app[0]"].values["vpc_id"] != vpc {
		m.t.Errorf("dbcloud_service.app[0]: vpc_id %v, want %s", objs["dbcloud_service.app[0]"].values["vpc_id"], vpc)
	}
}

// movedObjects reads the state's managed objects (terraform show -json, and the state file for their
// identities) by address.
func (m *migration) movedObjects() map[string]movedObject {
	m.t.Helper()
	var shown struct {
		Values struct {
			Root struct {
				Resources []struct {
					Address   string         `json:"address"`
					Values    map[string]any `json:"values"`
					Sensitive map[string]any `json:"sensitive_values"`
				} `json:"resources"`
				Children []struct {
					Resources []struct {
						Address   string         `json:"address"`
						Values    map[string]any `json:"values"`
						Sensitive map[string]any `json:"sensitive_values"`
					} `json:"resources"`
				} `json:"child_modules"`
			} `json:"root_module"`
		} `json:"values"`
	}
	out := m.w.must("show", "-json")
	start := max(strings.Index(out, "{"), 0) // after the warning of the dev_overrides, if any
	if err := json.Unmarshal([]byte(out[start:]), &shown); err != nil {
		m.t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	objs := map[string]movedObject{}
	for _, r := range shown.Values.Root.Resources {
		objs[r.Address] = movedObject{values: r.Values, sensitive: r.Sensitive}
	}
	for _, c := range shown.Values.Root.Children {
		for _, r := range c.Resources {
			objs[r.Address] = movedObject{values: r.Values, sensitive: r.Sensitive}
		}
	}
	var st struct {
		Resources []struct {
			Module, Type, Name string
			Instances          []struct {
				IndexKey any            `json:"index_key"`
				Identity map[string]any `json:"identity"`
			} `json:"instances"`
		} `json:"resources"`
	}
	b, err := os.ReadFile(filepath.Join(m.w.dir, "terraform.tfstate"))
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		m.t.Fatal(err)
	}
	for _, r := range st.Resources {
		for _, in := range r.Instances {
			addr := strings.TrimPrefix(r.Module+"."+r.Type+"."+r.Name, ".")
			if k, ok := in.IndexKey.(float64); ok {
				addr += fmt.Sprintf("[%d]", int(k))
			}
			o := objs[addr]
			o.identity = in.Identity
			objs[addr] = o
		}
	}
	return objs
}
