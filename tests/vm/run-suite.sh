#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-suite.sh --kernel KVER|debug [--full] [TEST...]
#
# Run every tests/vm/tests/*.sh (or the named ones) in its own VM and append
# one result line per script to $SROCE_RESULTS (default build/results.tsv):
#     vm-<KVER>\t<test>\t<PASS|FAIL|SKIP>\t<detail>
# It first appends "#expect\tvm-<KVER>\t<number of tests>" (report.sh fails
# the suite if fewer lines follow: a run that died part-way) and a
# "#time\tvm-<KVER>\t<test>\t<seconds>" line after each test. Exits 1 if a
# test failed.
# Script header lines read here:
#     # hosts: 2        two linked guests (default 1)
#     # cpus: 2         vCPUs per guest (default 1)
#     # timeout: SEC    instead of 300
#     # full-only       only with --full (make check-full); else a SKIP line
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
RESULTS=${SROCE_RESULTS:-$TOP/build/results.tsv}
KERNEL='' FULL=0 TESTS=() FAILED=0

usage() {
	sed -n '4p' "$0" | sed 's/^# //' >&2
	exit 2
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) KERNEL=$2; shift 2 ;;
		--full) FULL=1; shift ;;
		-*) usage ;;
		*) TESTS+=("$1"); shift ;;
		esac
	done
	[ -n "$KERNEL" ] || usage
	if [ ${#TESTS[@]} = 0 ]; then
		TESTS=("$HERE"/tests/*.sh)
	fi
}

# header FILE KEY: value of a "# KEY: value" line near the top of FILE.
header() {
	head -n 20 "$1" | sed -n "s/^# $2:[[:space:]]*\([^[:space:]]*\).*/\1/p" | head -n 1
}

record() {
	printf 'vm-%s\t%s\t%s\t%s\n' "$KERNEL" "$1" "$2" "$3" >> "$RESULTS"
	[ "$2" != FAIL ] || FAILED=1
}

# Resolve a test given as a name ("device-add"), a file name or a path.
test_path() {
	local t=$1

	[ -f "$t" ] && { realpath "$t"; return; }
	t=$(basename "$t" .sh)
	[ -f "$HERE/tests/$t.sh" ] && { echo "$HERE/tests/$t.sh"; return; }
	return 1
}

run_one() {
	local path=$1 name hosts cpus timeout detail_file rc verdict detail start=$SECONDS

	name=$(basename "$path" .sh)
	# Not run is still reported: the summary lists it with the reason.
	if head -n 20 "$path" | grep -q '^# full-only' && [ "$FULL" = 0 ]; then
		echo "run-suite: $name: full-only, not run"
		record "$name" SKIP "full-only (make check-full)"
		return
	fi
	hosts=$(header "$path" hosts); timeout=$(header "$path" timeout)
	cpus=$(header "$path" cpus)
	detail_file=$(mktemp)
	"$HERE/vm-run" --kernel "$KERNEL" --hosts "${hosts:-1}" --cpus "${cpus:-1}" --timeout "${timeout:-300}" \
		--detail-file "$detail_file" "$path"
	rc=$?
	detail=$(head -n 1 "$detail_file" 2>/dev/null | tr '\t' ' ')
	rm -f "$detail_file"
	case "$rc" in
	0) verdict=PASS ;;
	77) verdict=SKIP ;;
	*) verdict=FAIL; [ -n "$detail" ] || detail="vm-run exit $rc" ;;
	esac
	record "$name" "$verdict" "$detail"
	printf '#time\tvm-%s\t%s\t%d\n' "$KERNEL" "$name" $((SECONDS - start)) >> "$RESULTS"
}

main() {
	local t path

	parse_args "$@"
	mkdir -p "$(dirname "$RESULTS")"
	printf '#expect\tvm-%s\t%d\n' "$KERNEL" "${#TESTS[@]}" >> "$RESULTS"
	for t in "${TESTS[@]}"; do
		if ! path=$(test_path "$t"); then
			record "$(basename "$t" .sh)" FAIL "no such test"
			continue
		fi
		run_one "$path"
	done
	return "$FAILED"
}

main "$@"
