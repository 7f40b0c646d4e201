package pagetest

import (
	"fmt"
	"io"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/clitest"
)

// The run of one page: its configuration, its state, and how it counts its checks. Below every
// step of the run (setup.go, process.go, shell.go, reference.go, emulator.go), which run.go drives.

// Config is what the runner needs from the repository.
type Config struct {
	Terraform     string // the Terraform CLI a reader runs (terraform on PATH)
	TerraformNext string // a Terraform >= 1.16 for pages with actions, list resources or query ("" when missing)
	Tofu          string // OpenTofu, as `tofu` on the blocks' PATH ("" when missing: blocks that run tofu fail)
	ProviderDir   string // the directory holding the provider build (bin/), named in the dev_overrides
	Emulator      string // the emulator binary; started for every page on a free loopback port
	Postgres      string // the emulator's -postgres mode (auto, on, off)
	Out           io.Writer
	BlockTimeout  time.Duration
	Verbose       bool // print every block's output, not only a failed one's
}

// Result counts the checks of one page.
type Result struct {
	Passed, Failed, Skipped, Blocks int
	Errors                          []string
}

const (
	accessKey = "pagetest-access"
	secretKey = "pagetest-secret"
	projectID = "pagetest01"
)

// pageRun is the state of one page's run.
type pageRun struct {
	cfg      Config
	page     *Page
	root     string // temporary directory of the page
	work     string // the reader's directory (the working directory of the first block)
	state    string // env and cwd carried from one shell block to the next
	shims    string // PATH entries: terraform (the page's CLI), dbcloud-emulator
	failBin  string // PATH entry of the fault run of scripts: terraform always fails
	cli      string
	env      []string
	vars     map[string]string // what sub= may use: ${BASE_URL}, ${EMULATOR_ADDR}, ...
	emu      *clitest.Emulator
	bg       []int // process groups of background blocks
	res      Result
	expected string // expect-error: the page must fail with this text
	// reference: a page of a resource, data source, list resource, action,
	// ephemeral resource or function: its examples are parts of a reader's
	// configuration, each checked in a directory of its own.
	reference bool
	// declared: the reader's configuration declares the provider (as the getting
	// started guide shows): a directory the page writes .tf files into gets a
	// versions.tf with required_providers unless a block of the page has one.
	declared bool
	examples []string // the directories of a reference page's examples
	// others: the directories of the builds of the other providers the page uses (provider=), by
	// registry source, named in the CLI configuration's dev_overrides.
	others map[string]string
}

func (r *pageRun) printf(format string, a ...any) {
	if r.expected == "" || r.cfg.Verbose {
		fmt.Fprintf(r.cfg.Out, format, a...)
	}
}

func (r *pageRun) ok(what string) {
	r.res.Passed++
	r.printf("  ok    %s\n", what)
}

func (r *pageRun) fail(what, why, output string) {
	r.res.Failed++
	r.res.Errors = append(r.res.Errors, what+": "+why+"\n"+ansiRe.ReplaceAllString(output, ""))
	r.printf("  FAIL  %s: %s\n", what, why)
	if output != "" {
		r.printf("%s", indent(tail(output, 60)))
	}
}
