#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report.sh FILE - print the results FILE (suite\ttest\tverdict\tdetail lines,
# see tests/README.md) as a table, then the tally as the very last line:
#     N passed, N failed, N skipped
# Exit 1 if any test failed or there is no result at all. A line that does not
# follow the contract counts as a failure, so a broken runner cannot hide.
set -uo pipefail

main() {
	local file=${1:-}

	if [ -z "$file" ] || [ ! -r "$file" ]; then
		echo "report: no results file '${file}'"
		echo "0 passed, 0 failed, 0 skipped"
		return 1
	fi
	awk -F'\t' '
		function show(s, t, v, d) { printf "%-24s %-32s %-4s %s\n", s, t, v, d }
		BEGIN { show("SUITE", "TEST", "RES", "DETAIL") }
		/^[[:space:]]*$/ { next }
		{
			v = $3
			if (NF < 3 || (v != "PASS" && v != "FAIL" && v != "SKIP")) {
				show("?", "malformed result line", "FAIL", $0); fail++; next
			}
			show($1, $2, v, $4)
			if (v == "PASS") pass++; else if (v == "FAIL") fail++; else skip++
		}
		END {
			printf "%d passed, %d failed, %d skipped\n", pass, fail, skip
			exit (fail > 0 || pass + fail + skip == 0) ? 1 : 0
		}' "$file"
}

main "$@"
