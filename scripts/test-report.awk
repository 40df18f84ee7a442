# Reads `go test -v` and prints what `go test` prints without -v (each
# package's result, and the output of failing tests), plus every skipped
# test with its reason, so a test that could not run says so.
# Usage: go test -v ./... | awk -f scripts/test-report.awk
/^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next }
/^ *--- (PASS|SKIP|FAIL): / {
	name = $3
	if ($2 != "PASS:") { print; printf "%s", out[name] }
	delete out[name]
	next
}
/^(PASS|FAIL)$/ { next }
/^(ok|FAIL|\?) *\t/ {
	# The package is done; a test it never finished (a panic) shows its output.
	for (name in out) printf "%s", out[name]
	delete out
	cur = ""
	print
	next
}
{
	if (cur == "") print
	else out[cur] = out[cur] $0 "\n"
}
