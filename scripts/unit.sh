#!/usr/bin/env bash
# The race-enabled test suite. A failing package's log can run to thousands
# of lines (a timed-out test dumps every goroutine), and a CI log is often
# read from its end: on failure this repeats, last, what failed and which
# tests were running when a package timed out.
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"${GO:-go}" test -race -count=1 "$@" ./... 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
	echo
	echo "== what failed (repeated from above) =="
	grep -E -A4 '^(--- FAIL|panic: test timed out|FAIL|\s*running tests:)' "$log" | head -120
fi
exit "$rc"
