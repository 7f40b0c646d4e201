package provider

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// The connecting guide's configuration with the PostgreSQL provider (cyrilgdn/postgresql) cannot run
// here (the provider cannot be installed; the page runner skips the block, and the psql example of
// the same page runs the same steps). TestConnectingGuidePostgreSQLBlock checks it as far as it
// can without the provider: every argument of the provider and of its resources is one that
// provider documents, every variable it uses is declared, the migration runs again on a new service,
// the provider and the logins log in with the same password expression as the tested psql example
// (the previous password while planning a rotation, the new one when applying), and the skipped
// snippets that refer to this configuration set only variables it declares.

// postgresqlArguments are the arguments cyrilgdn/postgresql documents (provider configuration,
// postgresql_role, postgresql_grant), besides Terraform's meta-arguments.
var postgresqlArguments = map[string][]string{
	"provider": {"host", "port", "database", "username", "password", "sslmode", "ssl_mode", "clientcert", "sslrootcert",
		"connect_timeout", "max_connections", "expected_version", "superuser", "database_username", "scheme",
		"aws_rds_iam_auth", "aws_rds_iam_profile", "aws_rds_iam_region", "aws_rds_iam_provider_role_arn",
		"azure_identity_auth", "azure_tenant_id", "gcp_iam_impersonate_service_account", "alias"},
	"postgresql_role": {"name", "superuser", "create_database", "create_role", "inherit", "login", "replication",
		"bypass_row_level_security", "connection_limit", "encrypted_password", "password", "roles", "search_path",
		"valid_until", "skip_drop_role", "skip_reassign_owned", "statement_timeout", "assume_role",
		"idle_in_transaction_session_timeout"},
	"postgresql_grant": {"role", "database", "schema", "object_type", "objects", "columns", "privileges", "with_grant_option"},
}

var metaArguments = []string{"depends_on", "count", "for_each", "provider", "lifecycle"}

// pageBlocks are the fenced blocks of a page: language, the marker comment before it ("" if none),
// and the text.
type pageBlock struct{ lang, marker, text, heading string }

func pageBlocks(t *testing.T, file string) []pageBlock {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []pageBlock
	var cur *pageBlock
	marker, heading := "", ""
	for line := range strings.SplitSeq(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur, marker = nil, ""
		case cur != nil:
			cur.text += line + "\n"
		case strings.HasPrefix(trimmed, "```"):
			cur = &pageBlock{lang: strings.TrimPrefix(trimmed, "```"), marker: marker, heading: heading}
		case strings.HasPrefix(trimmed, "<!-- pagetest:"):
			marker = trimmed
		case strings.HasPrefix(trimmed, "#"):
			heading, marker = trimmed, ""
		case trimmed != "":
			marker = ""
		}
	}
	return blocks
}

func TestConnectingGuidePostgreSQLBlock(t *testing.T) {
	var cfg *pageBlock
	blocks := pageBlocks(t, "../../docs/guides/connecting.md")
	for i, b := range blocks {
		if b.heading == "### With the PostgreSQL provider" && b.lang == "terraform" {
			cfg = &blocks[i]
			break
		}
	}
	if cfg == nil {
		t.Fatal("no terraform block under \"With the PostgreSQL provider\"")
	}
	if !strings.Contains(cfg.marker, "skip=") {
		t.Errorf("the block is not marked skip for the page runner (it needs a provider the tests cannot install): %q", cfg.marker)
	}
	declared := checkPostgreSQLConfig(t, cfg.text)
	checkPasswordNow(t, cfg.text)

	// Skipped snippets that refer to this configuration set only its variables.
	setVar := regexp.MustCompile(`TF_VAR_([A-Za-z0-9_]+)|-var[ =]+"?([A-Za-z0-9_]+)=`)
	for _, page := range []string{"../../docs/guides/connecting.md", "../../docs/guides/password-rotation.md"} {
		for _, b := range pageBlocks(t, page) {
			if b.lang != "shell" || !strings.Contains(b.marker, "PostgreSQL provider") {
				continue
			}
			for _, m := range setVar.FindAllStringSubmatch(b.text, -1) {
				name := m[1] + m[2]
				if !declared[name] {
					t.Errorf("%s: a snippet for the configuration with the PostgreSQL provider sets %s, which that configuration does not declare (it declares %v)",
						page, name, keys(declared))
				}
			}
		}
	}
}

// checkPostgreSQLConfig checks a configuration with the PostgreSQL provider and answers the
// variables it declares.
func checkPostgreSQLConfig(t *testing.T, text string) map[string]bool {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(text), "connecting.md", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("the block is not HCL: %v", diags)
	}
	body := f.Body.(*hclsyntax.Body)
	declared := map[string]bool{}
	for _, b := range body.Blocks {
		if b.Type == "variable" {
			declared[b.Labels[0]] = true
		}
	}
	sawMigration := false
	for _, b := range body.Blocks {
		kind := ""
		switch {
		case b.Type == "provider" && b.Labels[0] == "postgresql":
			kind = "provider"
		case b.Type == "resource" && strings.HasPrefix(b.Labels[0], "postgresql_"):
			kind = b.Labels[0]
			if postgresqlArguments[kind] == nil {
				t.Errorf("resource %s: not one the test knows the documented arguments of", kind)
				continue
			}
		}
		if kind != "" {
			for name := range b.Body.Attributes {
				if !slices.Contains(postgresqlArguments[kind], name) && !slices.Contains(metaArguments, name) {
					t.Errorf("%s %v: argument %q is not one cyrilgdn/postgresql documents", b.Type, b.Labels, name)
				}
			}
		}
		for _, v := range bodyVariables(b.Body) {
			if v.RootName() == "var" {
				name := v[1].(hcl.TraverseAttr).Name
				if !declared[name] {
					t.Errorf("%s %v uses var.%s, which the configuration does not declare", b.Type, b.Labels, name)
				}
			}
		}
		if b.Type == "resource" && b.Labels[0] == "terraform_data" && b.Labels[1] == "migrate" {
			sawMigration = true
			a := b.Body.Attributes["triggers_replace"]
			ok := false
			if a != nil {
				for _, v := range a.Expr.Variables() {
					if len(v) == 3 && v.RootName() == "dbcloud_service" && v[2].(hcl.TraverseAttr).Name == "id" {
						ok = true
					}
				}
			}
			if !ok {
				t.Error("terraform_data.migrate: triggers_replace does not hold the service's id: a replaced service would not be migrated")
			}
		}
	}
	if !sawMigration {
		t.Error("no terraform_data.migrate in the block")
	}
	if !strings.Contains(text, `source = "cyrilgdn/postgresql"`) {
		t.Error(`required_providers has no postgresql = { source = "cyrilgdn/postgresql" }`)
	}
	return declared
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// bodyVariables are the references of every expression of a body, nested blocks included.
func bodyVariables(body *hclsyntax.Body) []hcl.Traversal {
	var out []hcl.Traversal
	for _, a := range body.Attributes {
		out = append(out, a.Expr.Variables()...)
	}
	for _, b := range body.Blocks {
		out = append(out, bodyVariables(b.Body)...)
	}
	return out
}

// checkPasswordNow checks that the PostgreSQL provider and every login of the block log in with
// local.admin_password_now, defined as in examples/guides/connecting/main.tf, whose rotation in one
// apply scripts/credentials-example-test.sh runs.
func checkPasswordNow(t *testing.T, text string) {
	t.Helper()
	localExpr := func(name, src string) string {
		f, diags := hclsyntax.ParseConfig([]byte(src), name, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", name, diags)
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			if a := b.Body.Attributes["admin_password_now"]; b.Type == "locals" && a != nil {
				r := a.Expr.Range()
				return strings.Join(strings.Fields(string(r.SliceBytes([]byte(src)))), " ")
			}
		}
		return ""
	}
	example, err := os.ReadFile("../../examples/guides/connecting/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	want := localExpr("main.tf", string(example))
	if want == "" || !strings.Contains(want, "terraform.applying") {
		t.Fatalf("examples/guides/connecting/main.tf: no local admin_password_now chosen by terraform.applying: %q", want)
	}
	if got := localExpr("connecting.md", text); got != want {
		t.Errorf("local.admin_password_now is %q in the guide's block, %q in the tested example", got, want)
	}
	f, _ := hclsyntax.ParseConfig([]byte(text), "connecting.md", hcl.InitialPos)
	uses := func(b *hclsyntax.Block, attr string) bool {
		a := b.Body.Attributes[attr]
		if a == nil {
			return false
		}
		for _, v := range a.Expr.Variables() {
			if v.RootName() == "local" && v[1].(hcl.TraverseAttr).Name == "admin_password_now" {
				return true
			}
		}
		return false
	}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		switch {
		case b.Type == "provider" && b.Labels[0] == "postgresql" && !uses(b, "password"):
			t.Error("provider postgresql: password is not local.admin_password_now: a rotation's plan would log in with the new password, which the service does not have yet")
		case b.Type == "ephemeral" && b.Labels[0] == "dbcloud_service_credentials" && !uses(b, "admin_password"):
			t.Errorf("ephemeral %v: admin_password is not local.admin_password_now", b.Labels)
		}
	}
}
