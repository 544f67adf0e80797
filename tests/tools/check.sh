#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [--debug|--full] - what `make check`, `make check-debug` and
# `make check-full` run. Builds, runs every test runner, and ends with
# report.sh's tally line; exits with report.sh's status.
#
#   (default)  sroce.ko for every kernel from kernels.sh + the provider,
#              make install and dkms build for each (install-test.sh),
#              provider unit tests, KUnit, the VM suite on each kernel of
#              kernels.sh --test (the others are SKIP lines saying why)
#   --full     the same, with the VM suite's full-only tests
#   --debug    the debug kernel + its sroce.ko (tests/kunit/kernel.sh build)
#              and the provider, then the VM suite on the debug kernel
#
# A build failure is a FAIL line (build<TAB>module-<kver>...) and the run goes
# on: the tests that need the missing piece then fail on their own. So is a
# compiler warning in our sources, a runner that is missing, exits non-zero
# without a FAIL line or writes nothing. Wall times of the phases and tests
# go into the results as #phase/#time lines; report.sh prints them.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export SROCE_RESULTS=$TOP/build/results.tsv
LOGDIR=$TOP/build/logs
MODE=normal

log() { echo "check: $*"; }

record() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(tr '\t' ' ' <<< "${4:-}")" >> "$SROCE_RESULTS"
}

# timing SUITE TEST SECONDS: a #time line for report.sh's table.
timing() {
	printf '#time\t%s\t%s\t%d\n' "$1" "$2" "$3" >> "$SROCE_RESULTS"
}

# phase NAME: the phase NAME starts (and the previous one ends); phase ''
# only ends it. Each phase's wall time becomes a #phase line.
PHASE='' PHASE_START=0
phase() {
	local took=$((SECONDS - PHASE_START))

	if [ -n "$PHASE" ]; then
		printf '#phase\t%s\t%d\n' "$PHASE" "$took" >> "$SROCE_RESULTS"
		log "phase $PHASE: ${took}s"
	fi
	PHASE=$1 PHASE_START=$SECONDS
}

# Compiler warnings about our own sources (module, KUnit suites, uAPI
# header, the kernel-verbs test module built in build/<kver>/kmod/) in
# build log $1; the kernel's headers are not ours to fix.
OUR_WARNING='(drivers/infiniband/sw/sroce|tests/kunit|include/uapi/rdma/sroce|(build/[^/[:space:]]+|tests)/kmod/)[^:[:space:]]*:[0-9]+(:[0-9]+)?: warning:'
our_warnings() {
	grep -E "$OUR_WARNING" "$1" | head -n 5
}

# step NAME CMD...: run a build step with its output in build/logs/NAME.log
# and record it as build<TAB>NAME. It fails on a warning in our files too.
step() {
	local name=$1 out=$LOGDIR/$1.log start=$SECONDS warned

	shift
	log "$name: $*"
	if "$@" > "$out" 2>&1; then
		warned=$(our_warnings "$out")
		timing build "$name" $((SECONDS - start))
		if [ -z "$warned" ]; then
			record build "$name" PASS "$((SECONDS - start))s"
			return 0
		fi
		our_warnings "$out" | sed 's/^/    /'
		# Kbuild recompiles only what changed: drop the objects of a
		# module that warned, or the next run compiles nothing and passes.
		[[ $name == module-* ]] && find "$TOP/build/${name#module-}" -name '*.o' -delete
		record build "$name" FAIL "compiler warning: $(head -n 1 <<< "$warned" |
			sed -E 's#^[^:]*/((drivers|tests|include)/)#\1#' | cut -c1-160) (log: ${out#"$TOP"/})"
		return 1
	fi
	timing build "$name" $((SECONDS - start))
	tail -n 20 "$out" | sed 's/^/    /'
	record build "$name" FAIL "$(grep -m1 -iE 'error|fail' "$out" | cut -c1-120) (log: ${out#"$TOP"/})"
	return 1
}

# runner SUITE SCRIPT [ARGS...]: run a test runner that appends its own
# result lines. Silence is not a pass: a missing runner, one that writes no
# line, or one that exits non-zero without a FAIL line is a FAIL line
# (SUITE<TAB>runner). A runner that knows how many lines it will write says
# so with a #expect line, which report.sh checks.
runner() {
	local suite=$1 script=$2 before rc

	shift 2
	if [ ! -e "$script" ]; then
		record "$suite" runner FAIL "${script#"$TOP"/} absent"
		return
	fi
	log "$suite: ${script#"$TOP"/} $*"
	before=$(wc -l < "$SROCE_RESULTS")
	# Through a pipe: a runner that opens /dev/stderr (tee /dev/stderr)
	# would otherwise truncate the log `make check > log 2>&1` writes.
	bash "$script" "$@" 2>&1 | cat
	rc=${PIPESTATUS[0]}
	runner_verdict "$suite" "$script" "$before" "$rc"
}

# runner_verdict SUITE SCRIPT LINES_BEFORE RC: the FAIL line, if any, for
# what the runner left behind (result lines = not starting with '#').
runner_verdict() {
	local suite=$1 script=${2#"$TOP"/} rc=$4 new

	new=$(tail -n +"$(($3 + 1))" "$SROCE_RESULTS" | grep -v '^#')
	if [ -z "$new" ]; then
		record "$suite" runner FAIL "$script wrote no result (exit $rc)"
	elif [ "$rc" != 0 ] && ! cut -f3 <<< "$new" | grep -qx FAIL; then
		record "$suite" runner FAIL "$script exited $rc without a FAIL line"
	fi
}

vm_suite() {
	local opts=()

	[ "$MODE" = full ] && opts=(--full)
	runner "vm-$1" "$TOP/tests/vm/run-suite.sh" --kernel "$1" "${opts[@]}"
}

# vm_suites KERNEL...: the VM suite of each kernel, side by side (one after
# the other with SROCE_VM_PARALLEL=0). vm-run's vCPU slots keep the guests'
# vCPUs within the host's cores, so this only fills the core a one-vCPU
# guest leaves idle. Each suite writes its own results and log (runner()
# counts the lines its runner added) and both are appended once all ended.
vm_suites() {
	local k pids=() tsvs=() progress

	if [ "${SROCE_VM_PARALLEL:-1}" = 0 ] || [ $# -lt 2 ]; then
		for k in "$@"; do
			phase "vm suite $k"
			vm_suite "$k"
		done
		return
	fi
	phase "vm suites $* (side by side)"
	for k in "$@"; do
		log "vm-$k: in the background, output in ${LOGDIR#"$TOP"/}/vm-$k.log"
		: > "$LOGDIR/vm-$k.tsv"
		SROCE_RESULTS=$LOGDIR/vm-$k.tsv vm_suite "$k" > "$LOGDIR/vm-$k.log" 2>&1 &
		pids+=($!) tsvs+=("$LOGDIR/vm-$k.tsv")
	done
	# Each result (and #time) line as it comes: a long phase, not a silent one.
	tail -q -n +1 -F "${tsvs[@]}" 2> /dev/null &
	progress=$!
	wait "${pids[@]}"
	kill "$progress" 2> /dev/null
	for k in "$@"; do
		cat "$LOGDIR/vm-$k.log"
		cat "$LOGDIR/vm-$k.tsv" >> "$SROCE_RESULTS"
	done
}

# A kernel that is built but not booted (headers only, or an older ABI of a
# series) is a SKIP line with the reason, so the summary names it.
record_untested() {
	local k why

	while IFS=$'\t' read -r k why; do
		log "vm suite not run on $k: $why"
		record "vm-$k" suite SKIP "built, not tested: $why"
	done < <("$TOP/tests/tools/kernels.sh" --untested)
}

# The harness's own checks (report.sh, ktap.awk, vm-run's verdicts, this
# file's runner()) on sample input, plus one short real boot when a stock
# kernel is there: a broken judge would pass everything after it.
harness_selftest() {
	local opts=()

	[ -n "${1:-}" ] && opts=(--vm "$1")
	runner harness "$TOP/tests/tools/selftest.sh" "${opts[@]}"
}

# The header-codec fuzzer's bounded run: longer in make check-full.
fuzz_seconds() {
	if [ "$MODE" = full ]; then echo 300; else echo 20; fi
}

check_stock() {
	local kernels tested k

	kernels=$("$TOP/tests/tools/kernels.sh")
	tested=$("$TOP/tests/tools/kernels.sh" --test)
	[ -n "$kernels" ] || record build kernels FAIL "no supported kernel headers installed"
	[ -n "$tested" ] || record build kernels FAIL "no supported kernel can boot (image and modules)"
	phase build
	# -j: Kbuild and the test programs' makefiles build in parallel.
	for k in $kernels; do
		step "module-$k" make -j"$(nproc)" -C "$TOP" --no-print-directory "module-$k"
	done
	step provider make -j"$(nproc)" -C "$TOP" --no-print-directory provider
	step verbs-test make -j"$(nproc)" -C "$TOP/tests/verbs" --no-print-directory O="$TOP/build/verbs"
	step wire-judge-selftest python3 "$TOP/tests/tools/roce_pcap_check.py" --selftest
	step codec-fuzz bash "$TOP/tests/fuzz/run.sh" "$(fuzz_seconds)"
	step kernels-selftest bash "$TOP/tests/tools/kernels-selftest.sh"
	phase install
	# shellcheck disable=SC2086 # one word a kernel
	runner install "$TOP/tests/tools/install-test.sh" $kernels
	phase harness
	harness_selftest "$(head -n 1 <<< "$tested")"
	phase provider
	runner provider "$TOP/tests/provider/run.sh"
	phase kunit
	runner kunit "$TOP/tests/kunit/run.sh"
	record_untested
	# shellcheck disable=SC2086 # one word a kernel
	vm_suites $tested
	phase ''
}

check_debug() {
	phase build
	if [ -e "$TOP/tests/kunit/kernel.sh" ]; then
		step debug-kernel bash "$TOP/tests/kunit/kernel.sh" build
	else
		record build debug-kernel FAIL "tests/kunit/kernel.sh absent"
	fi
	step provider make -C "$TOP" --no-print-directory provider
	step verbs-test make -C "$TOP/tests/verbs" --no-print-directory O="$TOP/build/verbs"
	phase harness
	harness_selftest
	phase "vm suite debug"
	vm_suite debug
	phase ''
}

main() {
	case "${1:-}" in
	'') ;;
	--full) MODE=full ;;
	--debug) MODE=debug ;;
	*) echo "usage: check.sh [--debug|--full]" >&2; exit 2 ;;
	esac
	mkdir -p "$LOGDIR"
	: > "$SROCE_RESULTS"
	if [ "$MODE" = debug ]; then
		check_debug
	else
		check_stock
	fi
	echo
	"$TOP/tests/tools/report.sh" "$SROCE_RESULTS"
}

# selftest.sh sources this file for runner() and our_warnings().
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi
