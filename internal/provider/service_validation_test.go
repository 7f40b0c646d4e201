package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

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
