package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// interruptedWait is the one decision after a wait that Ctrl-C interrupted (wait.Interrupted). What the
// API accepted goes on without Terraform, so nothing is sent again and the object is kept:
//   - in a resource's create (severity warning), the object's state is already saved and the warning,
//     not an error, keeps it untainted (an error would taint it, and the next apply would destroy it
//     and create another); the next plan sees its status and the next apply waits for it;
//   - in an action (severity error), which has no state to keep, the action did not finish; invoking
//     it again continues from the service's status.
//
// detail says what was interrupted and what the next run does. It reports whether err was an
// interrupt; for any other error it adds nothing. (An interrupted update is an error through
// errorDetail, which says the same: Terraform keeps the object, the next apply continues.)
func interruptedWait(diags *diag.Diagnostics, err error, severity diag.Severity, summary, detail string) bool {
	if !wait.Interrupted(err) {
		return false
	}
	if severity == diag.SeverityError {
		diags.AddError(summary, detail)
	} else {
		diags.AddWarning(summary, detail)
	}
	return true
}
