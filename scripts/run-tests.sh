#!/usr/bin/env bash
# Runs every tap test and ends with one machine-readable line: "N passed, M failed".
# tap's own summary ("# { total: …, pass: … }") is turned into that line by tap-summary.awk.
set -u
cd "$(dirname "$0")/.."
out=tap-output.txt
npx tap --reporter=tap "$@" > "$out" 2>&1
rc=$?
cat "$out"
awk -f scripts/tap-summary.awk "$out"
exit $rc
