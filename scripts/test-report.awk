# Reads `go test -v` and prints what `go test` prints without -v (each
# package's result, and the output of failing tests), plus every skipped
# test with its reason, so a test that could not run says so; it ends with
# a summary of packages and tests, and the skipped tests again with why.
# Usage: go test -v ./... | awk -f scripts/test-report.awk
/^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next }
/^ *--- (PASS|SKIP|FAIL): / {
	name = $3
	top = ($0 ~ /^---/)
	if ($2 == "PASS:" && top) passed++
	if ($2 == "FAIL:" && top) failed++
	if ($2 == "SKIP:" && top) {
		skipped++
		why = out[name]
		sub(/^[ \t]+/, "", why); sub(/\n.*/, "", why); sub(/^[^ ]+\.go:[0-9]+: /, "", why)
		skips = skips "  " name ": " why "\n"
	}
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
	if ($1 == "ok") pkgOK++
	else if ($1 == "FAIL") pkgFailed++
	else pkgNone++
	print
	next
}
{
	if (cur == "") print
	else out[cur] = out[cur] $0 "\n"
}
END {
	if (skips != "") printf "\nskipped, and why:\n%s", skips
	printf "\npackages: %d ok, %d failed, %d without tests\n", pkgOK, pkgFailed, pkgNone
	printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped
}
