#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-suite.sh --kernel KVER|debug [--full] [TEST...]
#
# Run every tests/vm/tests/*.sh and every case of tests/vm/matrix.tsv (or
# the named ones) in its own VM, or with the others marked "# boot: shared"
# in one, and append one result line per test to $SROCE_RESULTS (default
# build/results.tsv):
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
#     # boot: shared    test that leaves nothing behind once the guests have
#                       cleaned up: runs with the other shared ones of the
#                       same hosts: and cpus: values in one boot (vm-run
#                       --group), each still its own verdict and line.
#                       SROCE_VM_SHARED=0 boots each on its own.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=tests/vm/matrix.bash
. "$HERE/matrix.bash"
RESULTS=${SROCE_RESULTS:-$TOP/build/results.tsv}
# The scripts standing for matrix.tsv's cases (matrix_script).
MATRIX_DIR=${SROCE_MATRIX_DIR:-$TOP/build/vm/matrix}
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
		mapfile -t -O ${#TESTS[@]} TESTS < <(matrix_names)
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
	matrix_script "$t"
}

# matrix_script NAME: the path of a script that runs matrix case NAME, its
# header lines made from the row, so the case boots like any other test.
# Written to a temporary name first: two suites (check.sh) may write it at
# once.
matrix_script() {
	local name=$1 row hosts timeout tier tmp

	row=$(matrix_row "$name") || return 1
	read -r hosts timeout tier _ <<< "$row"
	mkdir -p "$MATRIX_DIR" || return 1
	tmp=$(mktemp "$MATRIX_DIR/.$name.XXXXXX") || return 1
	{
		echo '#!/bin/bash'
		echo "# Made by tests/vm/run-suite.sh from tests/vm/matrix.tsv; edit the table."
		echo '# boot: shared'
		echo "# hosts: $hosts"
		echo "# timeout: $timeout"
		[ "$tier" != full ] || echo '# full-only'
		echo "exec bash \"\$SROCE_TOP/tests/vm/matrix.bash\" $name \"\$@\""
	} > "$tmp"
	mv -f "$tmp" "$MATRIX_DIR/$name.sh" && echo "$MATRIX_DIR/$name.sh"
}

# A full-only test outside --full.
is_skipped() {
	head -n 20 "$1" | grep -q '^# full-only' && [ "$FULL" = 0 ]
}

run_one() {
	local path=$1 name hosts cpus timeout detail_file rc verdict detail took start=$SECONDS

	name=$(basename "$path" .sh)
	# Not run is still reported: the summary lists it with the reason.
	if is_skipped "$path"; then
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
	# The run's own time, without the wait for vCPU slots (vm-run's 2nd line).
	took=$(sed -n '2p' "$detail_file" 2>/dev/null)
	[[ $took =~ ^[0-9]+$ ]] || took=$((SECONDS - start))
	rm -f "$detail_file"
	case "$rc" in
	0) verdict=PASS ;;
	77) verdict=SKIP ;;
	*) verdict=FAIL; [ -n "$detail" ] || detail="vm-run exit $rc" ;;
	esac
	record "$name" "$verdict" "$detail"
	printf '#time\tvm-%s\t%s\t%d\n' "$KERNEL" "$name" "$took" >> "$RESULTS"
}

# Is $1 a test for a shared boot (and sharing not turned off)? A test with
# its own kernel parameters (# cmdline:) always boots alone.
shared() {
	[ "${SROCE_VM_SHARED:-1}" != 0 ] && [ "$(header "$1" boot)" = shared ] &&
		[ -z "$(header "$1" cmdline)" ]
}

# The boot a shared test $1 needs: "HOSTS CPUS" (its group's key).
boot_kind() {
	local hosts cpus

	hosts=$(header "$1" hosts); cpus=$(header "$1" cpus)
	echo "${hosts:-1} ${cpus:-1}"
}

# run_group "HOSTS CPUS" PATH...: the shared tests of that kind, one boot.
# Each line of vm-run's OUT is one test's verdict; a test it wrote nothing
# for (vm-run itself failed) is a FAIL, never a missing line.
run_group() {
	local hosts=${1% *} cpus=${1#* } out rc path name verdict secs detail

	shift
	out=$(mktemp)
	echo "run-suite: $# tests in one boot ($hosts host(s), $cpus vCPU(s)): $(for path in "$@"; do basename "$path" .sh; done | tr '\n' ' ')"
	"$HERE/vm-run" --kernel "$KERNEL" --hosts "$hosts" --cpus "$cpus" --group "$out" "$@"
	rc=$?
	for path in "$@"; do
		name=$(basename "$path" .sh)
		if IFS=$'\t' read -r _ verdict secs detail < <(grep -P "^\Q$name\E\t" "$out" | head -n 1); then
			record "$name" "$verdict" "$detail"
			printf '#time\tvm-%s\t%s\t%d\n' "$KERNEL" "$name" "$secs" >> "$RESULTS"
		else
			record "$name" FAIL "vm-run --group wrote no verdict (exit $rc)"
		fi
	done
	rm -f "$out"
}

# vCPUs a test's boot takes (hosts x cpus).
vcpus() {
	local kind

	kind=$(boot_kind "$1")
	echo $((${kind% *} * ${kind#* }))
}

# Run the TESTS: the shared ones in one boot per kind (hosts:, cpus:), at
# the place of the first of them; the others each in its own. One-vCPU
# boots first: a suite run beside another (check.sh) overlaps those with
# the other's, while boots of two vCPUs take both cores (vm-run's slots).
run_tests() {
	local t path pass
	local -A group=() started=()

	for t in "${TESTS[@]}"; do
		path=$(test_path "$t") || continue
		is_skipped "$path" && continue
		shared "$path" || continue
		group[$(boot_kind "$path")]+="$path"$'\n'
	done
	for pass in one more; do
		for t in "${TESTS[@]}"; do
			if ! path=$(test_path "$t"); then
				[ $pass = one ] && record "$(basename "$t" .sh)" FAIL "no such test"
				continue
			fi
			if [ "$(vcpus "$path")" = 1 ]; then
				[ $pass = one ] || continue
			else
				[ $pass = more ] || continue
			fi
			run_test "$path"
		done
	done
}

# run_test PATH: on its own, or the first of its shared group: the group
# (run_tests' group and started maps).
run_test() {
	local path=$1 kind i

	if is_skipped "$path" || ! shared "$path"; then
		run_one "$path"
		return
	fi
	kind=$(boot_kind "$path")
	[ -n "${started[$kind]:-}" ] && return
	started[$kind]=1
	mapfile -t i < <(printf '%s' "${group[$kind]}")
	run_group "$kind" "${i[@]}"
}

main() {
	parse_args "$@"
	# The tests see it too (vm-run's job file): some run a longer matrix.
	export SROCE_VM_FULL=$FULL
	mkdir -p "$(dirname "$RESULTS")"
	printf '#expect\tvm-%s\t%d\n' "$KERNEL" "${#TESTS[@]}" >> "$RESULTS"
	run_tests
	return "$FAILED"
}

main "$@"
