package pagetest

import (
	"os"
	"strings"
	"testing"
)

// cli=every runs the page once on each CLI of the runner, and says which it could not run on.
func TestEveryCLI(t *testing.T) {
	page, err := Parse("every.md", "<!-- pagetest-page: cli=every -->\n\n```text\nonly shown\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res := RunPage(Config{Terraform: "/bin/terraform-a", TerraformNext: "", Tofu: "/bin/tofu-c", Out: &out}, page)
	for _, want := range []string{"every.md on Terraform (/bin/terraform-a)", "skip  every.md on Terraform next (needs Terraform 1.16", "every.md on OpenTofu (/bin/tofu-c)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output does not say %q:\n%s", want, out.String())
		}
	}
	if res.Skipped != 1 || res.Failed != 0 {
		t.Errorf("result %+v: want the missing CLI skipped, nothing failed", res)
	}
	page.Options["cli"] = "evry"
	out.Reset()
	if res := RunPage(Config{Terraform: "/bin/terraform-a", Out: &out}, page); res.Failed != 1 || !strings.Contains(out.String(), `cli="evry"`) {
		t.Errorf("a misspelt cli=: %+v, %q", res, out.String())
	}
}

// The CLI configuration names the provider's build and each other provider's (provider=) for both
// registries' addresses.
func TestCLIConfigOtherProviders(t *testing.T) {
	r := &pageRun{cfg: Config{ProviderDir: "/build/dbcloud"}, root: t.TempDir(), others: map[string]string{"timescale/timescale": "/cache/timescale"}}
	name, err := r.writeCLIConfig()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b := string(raw)
	for _, want := range []string{
		`"registry.terraform.io/dbcloud/dbcloud" = "/build/dbcloud"`, `"registry.opentofu.org/dbcloud/dbcloud" = "/build/dbcloud"`,
		`"registry.terraform.io/timescale/timescale" = "/cache/timescale"`, `"registry.opentofu.org/timescale/timescale" = "/cache/timescale"`,
	} {
		if !strings.Contains(b, want) {
			t.Errorf("the CLI configuration lacks %s:\n%s", want, b)
		}
	}
}

// provider= names a provider of ../shared/third_party; another is an error of the page.
func TestOtherProvidersUnknown(t *testing.T) {
	r := &pageRun{page: &Page{Options: map[string]string{"provider": "hashicorp/random"}}}
	if skip, err := r.otherProviders(); err == nil || skip != "" || !strings.Contains(err.Error(), "provider=hashicorp/random") {
		t.Errorf("skip %q, error %v", skip, err)
	}
}
