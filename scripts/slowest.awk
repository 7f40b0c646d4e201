# slowest.awk: the time of each top-level test in a `go test -v` log, one line
# each ("<seconds>s  <test>  <cli>", "(failed)" after a failed one); cli is a
# variable (awk -v cli=...). A test's time is its own, or, when its subtests run
# in parallel, its slowest subtest's: go test counts a parent as running until
# its last parallel subtest ends, including the time they waited for a free
# slot behind other tests. scripts/testacc.sh sorts the lines of all CLIs.
/^=== PAUSE Test[^ ]*\// { split($3, p, "/"); parallel[p[1]] = 1 }
match($0, /^ *--- (PASS|FAIL): Test[^ ]+ \([0-9.]+s\)$/) {
	name = $3; secs = substr($4, 2) + 0; split(name, p, "/"); top = p[1]
	if ($2 == "FAIL:") failed[top] = 1
	if (name == top) own[top] = secs; else if (secs > slowest_sub[top]) slowest_sub[top] = secs
}
END {
	for (n in own) {
		t = (n in parallel) ? slowest_sub[n] : own[n]
		printf "%9.1fs  %-55s %s%s\n", t, n, cli, (failed[n] ? "  (failed)" : "")
	}
}
