#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [--debug|--full] - what `make check`, `make check-debug` and
# `make check-full` run. Builds, runs every test runner, and ends with
# report.sh's tally line; exits with report.sh's status.
#
#   (default)  sroce.ko for every kernel from kernels.sh + the provider,
#              provider unit tests, KUnit, the VM suite on each kernel of
#              kernels.sh --test (the others are SKIP lines saying why)
#   --full     the same, with the VM suite's full-only tests
#   --debug    the debug kernel + its sroce.ko (tests/kunit/kernel.sh build)
#              and the provider, then the VM suite on the debug kernel
#
# A build failure is a FAIL line (build<TAB>module-<kver>...) and the run goes
# on: the tests that need the missing piece then fail on their own.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export SROCE_RESULTS=$TOP/build/results.tsv
LOGDIR=$TOP/build/logs
MODE=normal

log() { echo "check: $*"; }

record() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(tr '\t' ' ' <<< "${4:-}")" >> "$SROCE_RESULTS"
}

# step NAME CMD...: run a build step with its output in build/logs/NAME.log
# and record it as build<TAB>NAME.
step() {
	local name=$1 out=$LOGDIR/$1.log start=$SECONDS

	shift
	log "$name: $*"
	if "$@" > "$out" 2>&1; then
		record build "$name" PASS "$((SECONDS - start))s"
		return 0
	fi
	tail -n 20 "$out" | sed 's/^/    /'
	record build "$name" FAIL "$(grep -m1 -iE 'error|fail' "$out" | cut -c1-120) (log: ${out#"$TOP"/})"
	return 1
}

# Other engineers' runners append their own lines; a crash that leaves none
# is recorded so it cannot pass silently.
runner() {
	local suite=$1 script=$2 before after

	[ -e "$script" ] || { log "$suite: $script absent, skipped"; return 0; }
	log "$suite: $script"
	before=$(wc -l < "$SROCE_RESULTS")
	# Through a pipe: a runner that opens /dev/stderr (tee /dev/stderr)
	# would otherwise truncate the log `make check > log 2>&1` writes.
	bash "$script" 2>&1 | cat
	after=$(wc -l < "$SROCE_RESULTS")
	[ "$after" -gt "$before" ] || record "$suite" runner FAIL "$script wrote no result"
}

vm_suite() {
	local opts=()

	[ "$MODE" = full ] && opts=(--full)
	log "vm suite on $1"
	"$TOP/tests/vm/run-suite.sh" --kernel "$1" "${opts[@]}"
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

check_stock() {
	local kernels tested k

	kernels=$("$TOP/tests/tools/kernels.sh")
	tested=$("$TOP/tests/tools/kernels.sh" --test)
	[ -n "$kernels" ] || record build kernels FAIL "no supported kernel headers installed"
	[ -n "$tested" ] || record build kernels FAIL "no supported kernel can boot (image and modules)"
	for k in $kernels; do
		step "module-$k" make -C "$TOP" --no-print-directory "module-$k"
	done
	step provider make -C "$TOP" --no-print-directory provider
	step verbs-test make -C "$TOP/tests/verbs" --no-print-directory O="$TOP/build/verbs"
	step wire-judge-selftest python3 "$TOP/tests/tools/roce_pcap_check.py" --selftest
	step kernels-selftest bash "$TOP/tests/tools/kernels-selftest.sh"
	runner provider "$TOP/tests/provider/run.sh"
	runner kunit "$TOP/tests/kunit/run.sh"
	record_untested
	for k in $tested; do
		vm_suite "$k"
	done
}

check_debug() {
	if [ -e "$TOP/tests/kunit/kernel.sh" ]; then
		step debug-kernel bash "$TOP/tests/kunit/kernel.sh" build
	else
		record build debug-kernel FAIL "tests/kunit/kernel.sh absent"
	fi
	step provider make -C "$TOP" --no-print-directory provider
	step verbs-test make -C "$TOP/tests/verbs" --no-print-directory O="$TOP/build/verbs"
	vm_suite debug
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

main "$@"
