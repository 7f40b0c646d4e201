package provider

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// runWithPassword calls the function as the framework does, with the values as arguments.
func runWithPassword(t *testing.T, uri, password attr.Value) (types.String, *function.FuncError) {
	t.Helper()
	resp := function.RunResponse{Result: function.NewResultData(types.StringUnknown())}
	NewWithPasswordFunction().Run(context.Background(), function.RunRequest{Arguments: function.NewArgumentsData([]attr.Value{uri, password})}, &resp)
	got, _ := resp.Result.Value().(types.String)
	return got, resp.Error
}

const vendorURI = "postgresql://tsdbadmin@abc.example.com:5432/tsdb?sslmode=require"

func TestWithPassword(t *testing.T) {
	for _, tc := range []struct {
		name, uri, password, want string
	}{
		{"plain", vendorURI, "Passw0rd", "postgresql://tsdbadmin:Passw0rd@abc.example.com:5432/tsdb?sslmode=require"},
		{"reserved characters", vendorURI, "a@b:c/d?e#f%g+h",
			"postgresql://tsdbadmin:a%40b%3Ac%2Fd%3Fe%23f%25g+h@abc.example.com:5432/tsdb?sslmode=require"},
		{"space", vendorURI, "two words", "postgresql://tsdbadmin:two%20words@abc.example.com:5432/tsdb?sslmode=require"},
		{"non-ASCII", vendorURI, "pässwörd-密码", "postgresql://tsdbadmin:p%C3%A4ssw%C3%B6rd-%E5%AF%86%E7%A0%81@abc.example.com:5432/tsdb?sslmode=require"},
		{"empty password", vendorURI, "", "postgresql://tsdbadmin:@abc.example.com:5432/tsdb?sslmode=require"},
		{"postgres scheme, no path", "postgres://u@h:6432", "p:w", "postgres://u:p%3Aw@h:6432"},
		{"password replaced", "postgresql://u:old%40pw@h/db", "new", "postgresql://u:new@h/db"},
		{"query and fragment kept byte for byte", "postgresql://u@h/db?options=-c%20x%3Dy&a=b#frag", "p", "postgresql://u:p@h/db?options=-c%20x%3Dy&a=b#frag"},
		{"encoded user kept as written", "postgresql://my%40user@h/db", "p@", "postgresql://my%40user:p%40@h/db"},
		{"IPv6 host", "postgresql://u@[::1]:5432/db", "p", "postgresql://u:p@[::1]:5432/db"},
		{"upper-case scheme", "PostgreSQL://u@h/db", "p", "PostgreSQL://u:p@h/db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ferr := runWithPassword(t, types.StringValue(tc.uri), types.StringValue(tc.password))
			if ferr != nil {
				t.Fatalf("error: %v", ferr)
			}
			if got.ValueString() != tc.want {
				t.Fatalf("got  %s\nwant %s", got.ValueString(), tc.want)
			}
			// What a client decodes is the password given, and the same as Go's url.UserPassword gives.
			u, err := url.Parse(got.ValueString())
			if err != nil {
				t.Fatalf("the result does not parse: %v", err)
			}
			if pw, _ := u.User.Password(); pw != tc.password {
				t.Errorf("the result decodes to password %q, want %q", pw, tc.password)
			}
			if want := url.UserPassword(u.User.Username(), tc.password).String(); !strings.Contains(got.ValueString(), "://"+want+"@") {
				t.Errorf("userinfo differs from url.UserPassword's %q", want)
			}
		})
	}
}

func TestWithPasswordNullPassword(t *testing.T) {
	got, ferr := runWithPassword(t, types.StringValue(vendorURI), types.StringNull())
	if ferr != nil || got.ValueString() != vendorURI {
		t.Fatalf("null password: got %v, %v; want the URI unchanged", got, ferr)
	}
}

func TestWithPasswordErrors(t *testing.T) {
	for _, tc := range []struct{ name, uri, want string }{
		{"empty", "", `"" is not a postgresql:// or postgres:// URI`},
		{"other scheme", "mysql://u@h/db", `"mysql://u@h/db" is not a postgresql:// or postgres:// URI`},
		{"no scheme", "tsdbadmin@h:5432/tsdb", "is not a postgresql:// or postgres:// URI"},
		{"libpq key/value string", "host=h user=u dbname=tsdb", "is not a postgresql:// or postgres:// URI"},
		{"scheme without slashes", "postgresql:u@h/db", "is not a postgresql:// or postgres:// URI"},
		{"bad escape", "postgresql://u@h/db%zz", "is not a valid URI"},
		{"no user", "postgresql://h:5432/tsdb", "names no user"},
		{"existing password not echoed", "mysql://u:s3cret@h/db", `"mysql://u:***@h/db" is not`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ferr := runWithPassword(t, types.StringValue(tc.uri), types.StringValue("pw-not-in-errors"))
			if ferr == nil {
				t.Fatalf("no error; result %v", got)
			}
			if ferr.FunctionArgument == nil || *ferr.FunctionArgument != 0 {
				t.Errorf("the error does not name the uri argument: %+v", ferr)
			}
			if !strings.Contains(ferr.Text, "Invalid uri: ") || !strings.Contains(ferr.Text, tc.want) {
				t.Errorf("error %q does not say %q", ferr.Text, tc.want)
			}
			if strings.Contains(ferr.Text, "pw-not-in-errors") || strings.Contains(ferr.Text, "s3cret") {
				t.Errorf("the error shows a password: %q", ferr.Text)
			}
		})
	}
}

// The function in a real configuration: outputs built with it, a null password, and the error
// Terraform shows for a URI that is not one. OpenTofu (1.12.6) sends a null function argument with no
// value at all, which the framework cannot decode, so there a null password is an error whatever the
// provider does; a conditional around the call (as the function's page advises) works on both.
func TestAccFunctionWithPassword(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := providerBlock(srv) + `
locals {
  password = "p@ss:w/rd?#%+ é"
  none     = null
  uri      = "postgres://tsdbadmin@db.example.com:5432/tsdb"
}
output "uri" {
  value = provider::dbcloud::with_password("postgresql://tsdbadmin@db.example.com:5432/tsdb?sslmode=require", local.password)
}
output "guarded" {
  value = local.none == null ? local.uri : provider::dbcloud::with_password(local.uri, local.none)
}
`
	nullStep := resource.TestStep{
		Config: cfg + `
output "unchanged" {
  value = provider::dbcloud::with_password(local.uri, local.none)
}
`,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownOutputValue("unchanged", knownvalue.StringExact("postgres://tsdbadmin@db.example.com:5432/tsdb")),
		},
	}
	if acceptanceCLIIsOpenTofu(t) {
		nullStep.ConfigStateChecks = nil
		nullStep.ExpectError = words("Unable to Convert Function Argument", "DynamicValue had no JSON or msgpack data set")
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testProviderFactories(),
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("uri", knownvalue.StringExact(
						"postgresql://tsdbadmin:p%40ss%3Aw%2Frd%3F%23%25+%20%C3%A9@db.example.com:5432/tsdb?sslmode=require")),
					statecheck.ExpectKnownOutputValue("guarded", knownvalue.StringExact("postgres://tsdbadmin@db.example.com:5432/tsdb")),
				},
			},
			nullStep,
			{
				Config: providerBlock(srv) + fmt.Sprintf(`
output "bad" {
  value = provider::dbcloud::with_password(%q, "x")
}
`, "https://tsdbadmin@db.example.com/tsdb"),
				ExpectError: words(`Invalid uri: "https://tsdbadmin@db.example.com/tsdb" is not a postgresql:// or postgres:// URI`),
			},
		},
	})
}

// acceptanceCLIIsOpenTofu reports whether the CLI the acceptance tests run (TF_ACC_TERRAFORM_PATH, else
// terraform on PATH) is OpenTofu: a line of its version output starts with its name (the first one is
// a warning when TF_CLI_CONFIG_FILE names a file that does not exist).
func acceptanceCLIIsOpenTofu(t *testing.T) bool {
	t.Helper()
	bin, err := acceptanceCLIPath()
	if err != nil {
		return false
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	return openTofuVersionLine.Match(out)
}

var openTofuVersionLine = regexp.MustCompile(`(?m)^OpenTofu v`)
