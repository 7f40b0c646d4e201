package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// What is not a resource rides an outage too: data sources and a short-lived login
// (dbcloud_service_credentials) in an apply, a `terraform query` of list resources, and an action
// (dbcloud_service_restart) whose stop is sent into the outage. Each command meets 40 s of outage at
// full scale (every request answered 503, or every connection closed unanswered: longer than the
// attempts after which a read used to give up, about 30 s at full scale; outageWindow shrinks both),
// succeeds, and the action's stop and start are each carried out once. Needs Terraform 1.14 or later (query, actions) and the PostgreSQL
// server binaries (the login is a real one).

const outageReadsPassword = "Outage-reads-pw-1"

// outageReadsConfig is the service, the data sources, a login used by a probe (the test binary, run by
// a local-exec provisioner with the login's connection string, as the credentials tests do), and the
// restart action. var.run replaces the probe, so that each apply opens the login and uses it.
func outageReadsConfig(out string) string {
	bin, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`
variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "run" {
  type    = number
  default = 1
}

resource "dbcloud_service" "s" {
  name                = "outage-reads"
  password_wo         = var.admin_password
  password_wo_version = 1
}

data "dbcloud_services" "all" {}

data "dbcloud_service" "s" {
  id = dbcloud_service.s.id
}

data "dbcloud_vpcs" "all" {}

output "names" {
  value = [for s in data.dbcloud_services.all.services : s.name]
}

output "status" {
  value = data.dbcloud_service.s.status
}

output "vpcs" {
  value = length(data.dbcloud_vpcs.all.vpcs)
}

ephemeral "dbcloud_service_credentials" "login" {
  service_id     = dbcloud_service.s.id
  admin_password = var.admin_password
  ttl            = "10m"
}

resource "terraform_data" "probe" {
  triggers_replace = [var.run]

  provisioner "local-exec" {
    command = %[1]q
    environment = {
      %[2]s = "sql"
      CREDS_SQL = "SELECT 1"
      CREDS_URI = ephemeral.dbcloud_service_credentials.login.connection_uri
      CREDS_OUT = "%[3]s-${var.run}.json"
    }
  }
}

action "dbcloud_service_restart" "restart" {
  config {
    service_id = dbcloud_service.s.id
  }
}
`, bin, credsProbeEnv, out)
}

const outageReadsQuery = `
list "dbcloud_service" "all" {
  provider = dbcloud
}

list "dbcloud_vpc" "all" {
  provider = dbcloud
}
`

func TestAccOutage_readsLoginQueryAndAction(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	window := outageWindow(40 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		tf := newTerraformServing(t, "1.14.0", outageProviderServer)
		tf.env = append(tf.env, "TF_VAR_admin_password="+outageReadsPassword)
		out := filepath.Join(t.TempDir(), "probe")
		_, withPG := startPostgres(t)
		at := newActionTestOn(t, tf, outageReadsConfig(out), withPG)
		writeFile(t, filepath.Join(at.tf.dir, "outage.tfquery.hcl"), outageReadsQuery)
		down := func(what string, startOn string) (met func() string) {
			at.srv.ResetRequests()
			started := time.Now()
			at.srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: startOn})
			return func() string {
				rep := at.srv.LastOutage()
				if rep.Start.IsZero() || rep.Refused == 0 {
					t.Fatalf("%s: the outage never started (%+v)", what, rep)
				}
				if time.Now().Before(rep.End) {
					t.Fatalf("%s: the command ended before the outage did (%s)", what, rep.End)
				}
				s := fmt.Sprintf("%s through %s of %s: %d requests met the outage; %s", what, window, kind, rep.Refused, time.Since(started).Round(time.Second))
				t.Log("outage case " + s)
				return s
			}
		}

		// 1. An apply that reads the data sources and opens the login (at plan and at apply), and
		// uses it: the outage starts at its first request.
		met := down("apply with data sources and a login", "any")
		at.tf.env = append(at.tf.env, "TF_VAR_run=2") // this run's probe, and every later command's
		if o, code := at.tf.runCode("apply", "-auto-approve", "-input=false"); code != 0 {
			t.Fatalf("apply through the outage: exit code %d\n%s", code, o)
		}
		met()
		var probe credsProbeResult
		b, err := os.ReadFile(out + "-2.json")
		if err != nil {
			t.Fatalf("the probe of the apply did not run: %v", err)
		}
		if err := json.Unmarshal(b, &probe); err != nil || probe.Err != "" || probe.User == "" || probe.User == "tsdbadmin" {
			t.Fatalf("the login of the apply: %+v (%v), want a session of a login of its own", probe, err)
		}
		outputs := at.tf.must("output", "-json")
		if !strings.Contains(outputs, `"outage-reads"`) || !strings.Contains(outputs, `"READY"`) {
			t.Errorf("the data sources' outputs after the outage: %s", outputs)
		}

		// 2. terraform query of the list resources.
		met = down("terraform query", "any")
		o, code := at.tf.runCode("query")
		if code != 0 {
			t.Fatalf("query through the outage: exit code %d\n%s", code, o)
		}
		met()
		if !strings.Contains(o, at.id) {
			t.Errorf("the query's output does not name the service %s:\n%s", at.id, o)
		}

		// 3. The restart action, its stop sent into the outage: one stop and one start carried out.
		met = down("restart action", "stopService")
		o, code = at.tf.runCode("apply", "-auto-approve", "-input=false", "-invoke=action.dbcloud_service_restart.restart")
		if code != 0 {
			t.Fatalf("restart through the outage: exit code %d\n%s", code, o)
		}
		met()
		handled := map[string]int{}
		for _, r := range at.srv.Requests() {
			if r.Method != http.MethodGet && r.Status != 0 && r.Status != http.StatusServiceUnavailable {
				handled[r.OperationID]++
			}
		}
		if handled["stopService"] != 1 || handled["startService"] != 1 || len(handled) != 2 {
			t.Errorf("calls that reached the API's handler: %v, want one stopService and one startService", handled)
		}
		if st := at.status(t); st != api.READY {
			t.Errorf("the service is %s after the restart, want READY", st)
		}
		at.emptyPlan(t, "the outages")
	})
}
