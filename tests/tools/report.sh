#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report.sh FILE - print the results FILE (suite\ttest\tverdict\tdetail lines,
# see tests/README.md) as a table, the skips with their reasons, the wall
# time per phase, the five slowest tests and the failures with their details
# (last, so the tail of a CI log names them), then the tally as the very last
# line:
#     N passed, N failed, N skipped
# Exit 1 if any test failed or there is no result at all. A line that does not
# follow the contract counts as a failure, so a broken runner cannot hide.
#
# Lines starting with '#' are directives, not results:
#     #expect\tSUITE\tN    N more result lines of SUITE must be in FILE (a
#                          runner says so before it runs; a runner that dies
#                          half-way leaves too few, which is a failure)
#     #time\tSUITE\tTEST\tSECONDS   wall time of one test (the table's TIME)
#     #phase\tNAME\tSECONDS         wall time of one phase of make check
# Times are shown, never judged.
set -uo pipefail

main() {
	local file=${1:-}

	if [ -z "$file" ] || [ ! -r "$file" ]; then
		echo "report: no results file '${file}'"
		echo "0 passed, 0 failed, 0 skipped"
		return 1
	fi
	awk -F'\t' '
		function show(s, t, v, tm, d) { printf "%-24s %-32s %-4s %6s %s\n", s, t, v, tm, d }
		function secs(x) { return x ~ /^[0-9]+(\.[0-9]+)?$/ }
		function malformed(why) {
			n++; suite[n] = "?"; test[n] = "malformed " why; verdict[n] = "FAIL"
			detail[n] = $0; gsub(/\t/, " ", detail[n])
		}
		/^[[:space:]]*$/ { next }
		$1 == "#expect" {
			if (NF < 3 || $3 !~ /^[0-9]+$/) { malformed("#expect line"); next }
			if (!($2 in want)) order[++nsuites] = $2
			want[$2] += $3
			next
		}
		$1 == "#time" {
			if (NF < 4 || !secs($4)) { malformed("#time line"); next }
			took[$2 SUBSEP $3] += $4
			next
		}
		$1 == "#phase" {
			if (NF < 3 || !secs($3)) { malformed("#phase line"); next }
			if (!($2 in phase)) porder[++nphases] = $2
			phase[$2] += $3
			next
		}
		/^#/ { malformed("directive"); next }
		{
			if (NF < 3 || ($3 != "PASS" && $3 != "FAIL" && $3 != "SKIP")) {
				malformed("result line"); next
			}
			n++; suite[n] = $1; test[n] = $2; verdict[n] = $3; detail[n] = $4
			got[$1]++
		}
		END {
			# A runner that promised more (or fewer) lines than it wrote
			# lost some: a test that never reported is not a pass.
			for (i = 1; i <= nsuites; i++) {
				s = order[i]
				if (got[s] + 0 != want[s]) {
					n++; suite[n] = s; test[n] = "(result count)"; verdict[n] = "FAIL"
					detail[n] = sprintf("expected %d results, got %d", want[s], got[s])
				}
			}
			show("SUITE", "TEST", "RES", "TIME", "DETAIL")
			for (i = 1; i <= n; i++) {
				k = suite[i] SUBSEP test[i]
				show(suite[i], test[i], verdict[i], (k in took) ? took[k] "s" : "", detail[i])
				if (verdict[i] == "PASS") pass++
				else if (verdict[i] == "FAIL") fail++
				else skip++
			}
			if (skip > 0) {
				printf "\nskipped (%d):\n", skip
				for (i = 1; i <= n; i++)
					if (verdict[i] == "SKIP")
						printf "  %s %s: %s\n", suite[i], test[i],
							detail[i] != "" ? detail[i] : "(no reason given)"
			}
			if (nphases > 0) {
				printf "\ntime per phase:\n"
				for (i = 1; i <= nphases; i++) {
					printf "  %-40s %6ds\n", porder[i], phase[porder[i]]
					total += phase[porder[i]]
				}
				printf "  %-40s %6ds\n", "total", total
			}
			nt = 0
			for (k in took) { nt++; tk[nt] = k }
			# Selection sort of the five largest: the list is short.
			if (nt > 0)
				printf "\nslowest tests:\n"
			for (j = 1; j <= 5 && j <= nt; j++) {
				best = j
				for (i = j + 1; i <= nt; i++)
					if (took[tk[i]] > took[tk[best]]) best = i
				t = tk[j]; tk[j] = tk[best]; tk[best] = t
				split(tk[j], parts, SUBSEP)
				printf "  %-60s %6ds\n", parts[1] " " parts[2], took[tk[j]]
			}
			if (fail > 0) {
				printf "\nfailed (%d):\n", fail
				for (i = 1; i <= n; i++)
					if (verdict[i] == "FAIL")
						printf "  %s %s: %s\n", suite[i], test[i],
							detail[i] != "" ? detail[i] : "(no detail given)"
			}
			if (nphases > 0 || nt > 0 || skip > 0 || fail > 0)
				print ""
			printf "%d passed, %d failed, %d skipped\n", pass, fail, skip
			exit (fail > 0 || pass + fail + skip == 0) ? 1 : 0
		}' "$file"
}

main "$@"
