package provider

import "testing"

// This run's pauses: what the plan of a service says of its pause after the apply (known until a plan
// makes it unknown again), and which services the apply's create or update left paused; each run
// (each provider data) keeps its own.
func TestRunPauses(t *testing.T) {
	var run, other providerData
	if _, known := run.pauses.afterApply("s1"); known || run.pauses.pausedByThisRun("s1") {
		t.Fatal("a service this run knows nothing of: its pause is known")
	}
	run.pauses.plan("s1", true)
	run.pauses.plan("s2", false)
	if paused, known := run.pauses.afterApply("s1"); !paused || !known {
		t.Errorf("s1 planned paused: afterApply = %v, %v", paused, known)
	}
	if paused, known := run.pauses.afterApply("s2"); paused || !known {
		t.Errorf("s2 planned running: afterApply = %v, %v", paused, known)
	}
	run.pauses.unplanned("s1")
	if _, known := run.pauses.afterApply("s1"); known {
		t.Error("s1 planned unknown after paused: the earlier plan still counts")
	}
	if run.pauses.pausedByThisRun("s2") {
		t.Error("s2 was planned, not paused by the apply: pausedByThisRun")
	}
	run.pauses.leftPaused("s2")
	if !run.pauses.pausedByThisRun("s2") {
		t.Error("s2 left paused by the apply: not pausedByThisRun")
	}
	if _, known := run.pauses.afterApply("s2"); !known {
		t.Error("leftPaused forgot the plan of s2")
	}
	if _, known := other.pauses.afterApply("s2"); known || other.pauses.pausedByThisRun("s2") {
		t.Error("another run sees this run's pauses")
	}
}
