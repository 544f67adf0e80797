#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh [--vm KVER] - the harness's own checks, on the host: every
# judge of make check is fed input whose verdict is known and must give it.
#   report.sh     tally, #expect counts, skip list, timings (sample file)
#   kunit/run.sh  --parse of a KTAP console sample (ktap.awk + run.* lines);
#                 a boot that never reaches insmod is retried once (fake QEMU)
#   vm-run        --judge of console logs made like guest-init.sh's: a failing
#                 script, a splat, a skip, a hang, a guest that died, ...,
#                 and of shared boots (--group: one verdict per case)
#   run-suite.sh  a full-only test is a SKIP, an unknown one a FAIL, #expect;
#                 matrix.tsv: well-formed rows, cases boot like scripts
#   check.sh      runner() on runners that lie, our_warnings(), step()
#   lib-rdma.bash check_pingpong on a ping-pong's output, clean and with a
#                 data mismatch
# --vm KVER adds three real boots (tests/vm/selftests/fail.sh splat, ~15 s; a
# shared boot of four cases, ~30 s; two hosts of which one leaves, ~25 s):
# the guest side of what vm-run judges,
# which samples cannot vouch for; and a fake boot (a stub QEMU) that must
# wait for vCPU slots another run holds.
# Appends "harness\t<case>\tPASS|FAIL\t<why>" to $SROCE_RESULTS (default:
# print only), after an #expect line with the number of cases.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
DATA=$HERE/selftest
RESULTS=${SROCE_RESULTS:-/dev/null}
NONCE=0123456789ab
VM_KERNEL=''
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FAILED=0

CASES=(report_sample report_no_file report_empty_file report_all_pass
	kunit_parse_sample kunit_boot_retried kunit_boot_hangs_twice
	judge_pass judge_fail judge_splat judge_boot_splat judge_skip judge_hang
	judge_guest_timeout judge_died judge_died_oops judge_died_silently judge_foreign_nonce judge_two_hosts
	judge_group judge_group_boot_splat judge_group_died judge_group_unclean
	judge_group_two_hosts
	run_suite_full_only run_suite_matrix matrix_table runner_lies runner_silent runner_absent runner_fail
	runner_ok warnings_ours warnings_not_ours warnings_kmod step_warning_fails
	pingpong_clean pingpong_mismatch)

result() {
	printf 'harness\t%s\t%s\t%s\n' "$1" "$2" "$(printf '%s' "${3:-}" | tr '\t\n' '  ' | cut -c1-300)" |
		tee -a "$RESULTS"
	[ "$2" != FAIL ] || FAILED=1
}

# ---- report.sh ----

# The sample has every kind of line; the whole output is compared.
t_report_sample() {
	local out=$WORK/report.out rc

	"$TOP/tests/tools/report.sh" "$DATA/report-sample.tsv" > "$out"
	rc=$?
	[ "$rc" = 1 ] || { echo "exit $rc, want 1"; return 1; }
	diff -u "$DATA/report-sample.expected" "$out" | head -n 20 | tr '\n' ' '
	cmp -s "$DATA/report-sample.expected" "$out"
}

# expect_tally RC LAST_LINE FILE: report.sh's exit status and last line.
expect_tally() {
	local out rc

	out=$("$TOP/tests/tools/report.sh" "$3")
	rc=$?
	[ "$rc" = "$1" ] || { echo "exit $rc, want $1"; return 1; }
	[ "$(tail -n 1 <<< "$out")" = "$2" ] || { echo "last line '$(tail -n 1 <<< "$out")'"; return 1; }
}

t_report_no_file() {
	expect_tally 1 "0 passed, 0 failed, 0 skipped" "$WORK/none.tsv"
}

# Directives and no result: nothing ran, which is not a pass.
t_report_empty_file() {
	printf '#phase\tbuild\t1\n\n' > "$WORK/empty.tsv"
	expect_tally 1 "0 passed, 0 failed, 0 skipped" "$WORK/empty.tsv"
}

t_report_all_pass() {
	printf '#expect\ts\t2\ns\ta\tPASS\t\ns\tb\tSKIP\twhy\n' > "$WORK/pass.tsv"
	expect_tally 0 "1 passed, 0 failed, 1 skipped" "$WORK/pass.tsv"
}

# ---- KUnit ----

# Passing, failing (with diagnostics), skipped and parameterised cases, a
# splat inside an "ok" case, a suite that fails to initialise, one that
# stops short of its plan, and a crash in the middle of the last suite.
t_kunit_parse_sample() {
	local out=$WORK/kunit.tsv

	: > "$out"
	SROCE_RESULTS=$out "$TOP/tests/kunit/run.sh" --parse "$DATA/ktap-sample.log" 2> /dev/null
	[ $? = 1 ] || { echo "run.sh --parse did not exit 1"; return 1; }
	diff -u "$DATA/ktap-sample.expected" "$out" | head -n 20 | tr '\n' ' '
	cmp -s "$DATA/ktap-sample.expected" "$out"
}

# kunit_tree HANGS: a copy of run.sh and its files with a stub kernel and
# module, and a fake qemu-system-x86_64 on PATH whose first HANGS boots
# print the start of a boot and exit as timeout(1) does (124); later ones
# print a clean run of one passing case.
kunit_tree() {
	local tree=$WORK/kunit-tree

	rm -rf "$tree"
	mkdir -p "$tree/tests/kunit" "$tree/build/kunit/module" "$tree/bin"
	cp "$TOP/tests/kunit/run.sh" "$TOP/tests/kunit/ktap.awk" "$TOP/tests/kunit/guest-init" \
		"$tree/tests/kunit/"
	echo stub > "$tree/build/kunit/bzImage"
	echo stub > "$tree/build/kunit/module/sroce.ko"
	echo 6.1.0-selftest > "$tree/build/kunit/kernel.release"
	echo 0 > "$tree/boots"
	cat > "$tree/bin/qemu-system-x86_64" <<-EOS
	#!/bin/bash
	con=\$(printf '%s\\n' "\$@" | sed -n 's/^file://p')
	n=\$((\$(cat "$tree/boots") + 1)); echo "\$n" > "$tree/boots"
	echo "[    0.000000] Linux version 6.1.0-selftest" > "\$con"
	if [ "\$n" -le $1 ]; then echo "[   11.585239] Run /init as init process" >> "\$con"; exit 124; fi
	printf '%s\\n' "[ 1.0] SROCE-KUNIT: insmod-begin" "[ 1.1]     KTAP version 1" \\
		"[ 1.1]     # Subtest: sample" "[ 1.1]     1..1" "[ 1.2]     ok 1 adds" \\
		"[ 1.3] ok 1 sample" "[ 1.4] SROCE-KUNIT: insmod-rc=0" "[ 1.5] SROCE-KUNIT: rmmod-rc=0" \\
		"[ 1.6] SROCE-KUNIT: kmemleak-unavailable" "[ 1.7] SROCE-KUNIT: finished" >> "\$con"
	EOS
	chmod +x "$tree/bin/qemu-system-x86_64"
}

# kunit_run_tree: run.sh --no-build in the tree; its results in kunit.tsv.
kunit_run_tree() {
	: > "$WORK/kunit.tsv"
	PATH=$WORK/kunit-tree/bin:$PATH SROCE_RESULTS=$WORK/kunit.tsv \
		"$WORK/kunit-tree/tests/kunit/run.sh" --no-build --timeout 10 2> /dev/null
}

# A boot that hangs before insmod (nothing of sroce ran) gets a second one,
# and run.boot says so.
t_kunit_boot_retried() {
	kunit_tree 1
	kunit_run_tree || { echo "run.sh exited $?: $(grep FAIL "$WORK/kunit.tsv" | head -n 1)"; return 1; }
	[ "$(cat "$WORK/kunit-tree/boots")" = 2 ] || { echo "$(cat "$WORK/kunit-tree/boots") boots, want 2"; return 1; }
	grep -qP '^kunit\trun.boot\tPASS\tthe first boot never reached insmod \(qemu rc 124' "$WORK/kunit.tsv" ||
		{ echo "run.boot: $(grep run.boot "$WORK/kunit.tsv")"; return 1; }
	grep -qP '^kunit\tsample.adds\tPASS' "$WORK/kunit.tsv" || { echo "no sample.adds PASS"; return 1; }
}

# Two boots that hang: a FAIL naming both, no third boot.
t_kunit_boot_hangs_twice() {
	kunit_tree 5
	kunit_run_tree && { echo "run.sh passed"; return 1; }
	[ "$(cat "$WORK/kunit-tree/boots")" = 2 ] || { echo "$(cat "$WORK/kunit-tree/boots") boots, want 2"; return 1; }
	grep -qP '^kunit\trun.boot\tFAIL\tguest never reached insmod .*; the first boot never' "$WORK/kunit.tsv" ||
		{ echo "run.boot: $(grep run.boot "$WORK/kunit.tsv")"; return 1; }
}

# ---- vm-run's verdict ----

# script_block MARKER RC OUTPUT AFTER BEFORE [CLEAN]: a script's run as
# guest-init.sh prints it, from the kernel's start MARKER to the exit
# marker; its kernel-log section has BEFORE, MARKER, AFTER; CLEAN: a shared
# boot's cleanup verdict. RC "" = the guest never got to print its status
# (hang, panic): no kernel-log section, no marker.
script_block() {
	local marker=$1 rc=$2 out=$3 after=$4 before=$5 clean=${6:-}

	echo "[    6.043518] $marker"
	[ -n "$out" ] && echo "$out"
	[ -n "$rc" ] || return 0
	echo "vm: [6.43] script exited with $rc"
	[ -n "$clean" ] && echo "vm: [6.90] cleanup: $clean"
	echo "SROCE-DMESG-BEGIN-$NONCE"
	[ -n "$before" ] && echo "$before"
	echo "[    6.043518] $marker"
	[ -n "$after" ] && echo "$after"
	echo "SROCE-DMESG-END-$NONCE"
	[ -n "$clean" ] && echo "SROCE-CLEAN-$NONCE: $clean"
	echo "SROCE-EXIT-$NONCE: $rc"
}

# console RC SCRIPT_OUTPUT [DMESG_AFTER [DMESG_BEFORE]]: a serial console as
# guest-init.sh prints it for one script (CRLF, like QEMU's).
console() {
	local rc=$1 out=$2 after=${3:-} before=${4:-} linux="[    0.000000] Linux version 6.1.0-selftest"
	{
		echo "$linux"
		[ -n "$before" ] && echo "$before"
		echo "vm: [5.36] modules ready"
		echo "vm: [6.05] running selftest.sh on 6.1.0-selftest, host 0 (198.18.0.1)"
		script_block "sroce-vm: test starts" "$rc" "$out" "$after" "$linux${before:+$'\n'$before}"
	} | sed 's/$/\r/'
}

# judge RC REGEX [OPTION...] -- LOG...: vm-run --judge must exit RC and its
# last line (the verdict) must match REGEX.
judge() {
	local want=$1 re=$2 opts=() rc last

	shift 2
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	"$TOP/tests/vm/vm-run" --judge "${opts[@]}" "$NONCE" "$@" > "$WORK/judge.out" 2>&1
	rc=$?
	last=$(tail -n 1 "$WORK/judge.out")
	[ "$rc" = "$want" ] || { echo "exit $rc, want $want: $last"; return 1; }
	grep -qE "$re" <<< "$last" || { echo "verdict '$last' does not match /$re/"; return 1; }
}

SPLAT_LINE='[    6.352384] WARNING: CPU: 0 PID: 1 at fake/selftest.c:1 selftest'

t_judge_pass() {
	console 0 "[fail] ok" "[    6.1] eth0: link up" > "$WORK/t.log"
	judge 0 ': PASS in ' -- "$WORK/t.log"
}

t_judge_fail() {
	console 1 "[fail] FAIL: asked to" > "$WORK/t.log"
	judge 1 ': FAIL \(exit 1: asked to\)' -- "$WORK/t.log"
}

# Exit 0, but the kernel warned while the script ran.
t_judge_splat() {
	console 0 "" "$SPLAT_LINE" > "$WORK/t.log"
	judge 1 ': FAIL \(kernel splat: WARNING: CPU: 0 PID: 1 at fake/selftest.c:1 selftest\)' \
		-- "$WORK/t.log"
}

t_judge_boot_splat() {
	console 0 "" "" "$SPLAT_LINE" > "$WORK/t.log"
	judge 1 'FAIL \(kernel splat: .*\(at boot, before the test\)\)' -- "$WORK/t.log"
}

t_judge_skip() {
	console 77 "[fail] SKIP: asked to" > "$WORK/t.log"
	judge 77 ': SKIP \(asked to\)' -- "$WORK/t.log"
}

# The guest never printed a status and vm-run killed it at the deadline.
t_judge_hang() {
	console "" "[fail] sleeping" > "$WORK/t.log"
	judge 1 ': FAIL \(timeout: killed after 60s\)' --timeout 60 --timed-out -- "$WORK/t.log"
}

# The guest's own deadline (timeout(1) in guest-init.sh) stopped the script.
t_judge_guest_timeout() {
	console 124 "" > "$WORK/t.log"
	judge 124 ': FAIL \(timeout: script still running after 45s in the guest\)' \
		--timeout 60 -- "$WORK/t.log"
}

# The verdict names what killed the guest: a CI log alone shows the crash.
t_judge_died() {
	console "" "[    7.1] Kernel panic - not syncing: Fatal exception" > "$WORK/t.log"
	judge 1 ': FAIL \(guest died: Kernel panic - not syncing: Fatal exception\)' -- "$WORK/t.log"
}

# An oops names the function (and module) it happened in.
t_judge_died_oops() {
	console "" "$(printf '%s\n' '[    9.1] BUG: kernel NULL pointer dereference, address: 0000000000000008' \
		'[    9.1] RIP: 0010:rxe_completer+0x1a2/0x1d00 [rdma_rxe]' \
		'[    9.2] Kernel panic - not syncing: Fatal exception in interrupt')" > "$WORK/t.log"
	judge 1 ': FAIL \(guest died: BUG: kernel NULL pointer dereference, address: 0+8 at rxe_completer\+0x1a2/0x1d00 \[rdma_rxe\]\)' \
		-- "$WORK/t.log"
}

t_judge_died_silently() {
	console "" "[fail] working" > "$WORK/t.log"
	judge 1 ': FAIL \(guest died without an exit status' -- "$WORK/t.log"
}

# A script cannot fake its own status: only the marker with this run's
# nonce counts.
t_judge_foreign_nonce() {
	console 1 "SROCE-EXIT-ffffffffffff: 0" | sed "/^SROCE-EXIT-$NONCE/d" > "$WORK/t.log"
	judge 1 ': FAIL \(guest died without an exit status' -- "$WORK/t.log"
}

# Two hosts: one failure fails the pair and names its host.
t_judge_two_hosts() {
	console 0 "[two] ok" > "$WORK/h0.log"
	console 1 "[two] FAIL: peer gone" > "$WORK/h1.log"
	judge 1 ': FAIL \(host1: exit 1: peer gone\)' -- "$WORK/h0.log" "$WORK/h1.log"
}

# ---- vm-run --group's verdicts: several cases, one console ----

# case_block NAME RC OUTPUT [DMESG [CLEAN [BOOT]]]: one case of a shared
# boot (CLEAN default "ok"; BOOT: kernel lines before the case's marker in
# its kernel-log section, as the first case's dmesg -c has the boot's).
case_block() {
	{
		echo "SROCE-CASE-$NONCE: $1"
		echo "vm: [6.05] running case $1 (/t/$1.sh) on 6.1.0-selftest"
		script_block "sroce-vm: test starts: $1" "$2" "$3" "${4:-}" "${6:-}" "${5:-ok}"
	} | sed 's/$/\r/'
}

# The boot before the first case; $1: a kernel line among the boot's.
group_boot() {
	{
		echo "[    0.000000] Linux version 6.1.0-selftest"
		[ -n "${1:-}" ] && echo "$1"
		echo "vm: [5.36] modules ready"
	} | sed 's/$/\r/'
}

# judge_group RC EXPECTED [OPTION...] -- CASE...: vm-run --judge --group on
# $WORK/g.log (and $WORK/g1.log with --hosts 2) must exit RC and write
# EXPECTED (name, verdict, detail: the seconds column is left out) for CASE...
judge_group() {
	local want=$1 expected=$2 opts=() logs=("$WORK/g.log") rc

	shift 2
	while [ "$1" != -- ]; do
		[ "$1" = 2 ] && [ "${opts[-1]:-}" = --hosts ] && logs+=("$WORK/g1.log")
		opts+=("$1"); shift
	done
	shift
	"$TOP/tests/vm/vm-run" --judge "${opts[@]}" --group "$WORK/g.out" "$NONCE" "${logs[@]}" "$@" \
		> "$WORK/judge.out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, want $want: $(tail -n 1 "$WORK/judge.out")"; return 1; }
	[ "$(cut -f1,2,4 "$WORK/g.out")" = "$expected" ] ||
		{ echo "wrote: $(cat "$WORK/g.out")"; return 1; }
}

# A pass, a failure, a splat (in its own slice only: the skip after it is
# still a skip), a skip, a hang killed at the deadline, then a case the
# guest never reached.
t_judge_group() {
	{
		group_boot
		case_block a 0 "[a] ok" "[    6.2] eth0: link up"
		case_block b 1 "[b] FAIL: asked to"
		case_block c 0 "" "$SPLAT_LINE"
		case_block d 77 "[d] SKIP: asked to"
		case_block e "" "[e] sleeping"
	} > "$WORK/g.log"
	judge_group 1 "$(printf '%s\n' $'a\tPASS\t' $'b\tFAIL\texit 1: asked to' \
		$'c\tFAIL\tkernel splat: WARNING: CPU: 0 PID: 1 at fake/selftest.c:1 selftest' \
		$'d\tSKIP\tasked to' $'e\tFAIL\ttimeout: killed after 60s' \
		$'f\tFAIL\tnot run: the guest was killed at the deadline during e')" \
		--timeout 60 --timed-out -- a b c d e f
}

# A splat at boot belongs to the first case (it saw the boot), not the next.
t_judge_group_boot_splat() {
	{
		group_boot "$SPLAT_LINE"
		case_block a 0 "" "" ok "$SPLAT_LINE"
		case_block b 0 ""
	} > "$WORK/g.log"
	judge_group 1 "$(printf '%s\n' \
		$'a\tFAIL\tkernel splat: WARNING: CPU: 0 PID: 1 at fake/selftest.c:1 selftest (at boot, before the test)' \
		$'b\tPASS\t')" -- a b
}

# The guest died in the middle of b: b and what follows FAIL, a stays.
t_judge_group_died() {
	{
		group_boot
		case_block a 0 ""
		case_block b "" "[    12.1] Kernel panic - not syncing: Fatal exception"
	} > "$WORK/g.log"
	judge_group 1 "$(printf '%s\n' $'a\tPASS\t' \
		$'b\tFAIL\tguest died: Kernel panic - not syncing: Fatal exception' \
		$'c\tFAIL\tnot run: the guest died during b')" -- a b c
}

# a passed but the guest could not be put back: a FAILs, b never ran.
t_judge_group_unclean() {
	{
		group_boot
		case_block a 0 "" "" "modules: ib_core ;"
	} > "$WORK/g.log"
	judge_group 1 "$(printf '%s\n' \
		$'a\tFAIL\tcleanup: the guest is not as it booted: modules: ib_core ;' \
		$'b\tFAIL\tnot run: the guest could not be cleaned up after a')" -- a b
}

# Two hosts: a case fails if either host's part does (the detail names the
# host), and a host that could not be cleaned up stops the pair.
t_judge_group_two_hosts() {
	{
		group_boot
		case_block a 0 "[a] ok"
		case_block b 0 "[b] ok"
	} > "$WORK/g.log"
	{
		group_boot
		case_block a 0 "[a] ok"
		case_block b 1 "[b] FAIL: peer gone" "" "modules: rdma_rxe ;"
	} > "$WORK/g1.log"
	judge_group 1 "$(printf '%s\n' $'a\tPASS\t' \
		$'b\tFAIL\thost1: exit 1: peer gone; cleanup: the guest is not as it booted: modules: rdma_rxe ;' \
		$'c\tFAIL\tnot run: the guest could not be cleaned up after b')" --hosts 2 -- a b c
}

# ---- run-suite.sh (no boot: neither test gets that far) ----

t_run_suite_full_only() {
	local out=$WORK/suite.tsv rc want

	mkdir -p "$WORK/tests"
	printf '#!/bin/bash\n# full-only\nexit 0\n' > "$WORK/tests/long.sh"
	printf '#!/bin/bash\n# boot: shared\nexit 0\n' > "$WORK/tests/shared.sh"
	: > "$out"
	SROCE_RESULTS=$out "$TOP/tests/vm/run-suite.sh" --kernel selftest \
		"$WORK/tests/long.sh" "$WORK/tests/shared.sh" no-such-test > /dev/null 2>&1
	rc=$?
	want=$(printf '#expect\tvm-selftest\t3\nvm-selftest\tlong\tSKIP\tfull-only (make check-full)\nvm-selftest\tshared\tFAIL\tvm-run --group wrote no verdict (exit 2)\nvm-selftest\tno-such-test\tFAIL\tno such test')
	[ "$rc" = 1 ] || { echo "exit $rc, want 1"; return 1; }
	[ "$(cat "$out")" = "$want" ] || { echo "wrote: $(cat "$out")"; return 1; }
}

# A matrix.tsv case is a test like a script: its generated script carries
# the row's header lines (hosts, timeout, full-only for tier full).
t_run_suite_matrix() {
	local out=$WORK/matrix.tsv dir=$WORK/matrix want script

	: > "$out"
	SROCE_MATRIX_DIR=$dir SROCE_RESULTS=$out "$TOP/tests/vm/run-suite.sh" --kernel selftest \
		loopback-pingpong-full two-hosts-write-bw > /dev/null 2>&1
	want=$(printf '#expect\tvm-selftest\t2\nvm-selftest\tloopback-pingpong-full\tSKIP\tfull-only (make check-full)\nvm-selftest\ttwo-hosts-write-bw\tFAIL\tvm-run --group wrote no verdict (exit 2)')
	[ "$(cat "$out")" = "$want" ] || { echo "wrote: $(cat "$out")"; return 1; }
	script=$dir/two-hosts-write-bw.sh
	for want in '# boot: shared' '# hosts: 2' '# timeout: 600' \
		'exec bash "$SROCE_TOP/tests/vm/matrix.bash" two-hosts-write-bw "$@"'; do
		grep -qxF "$want" "$script" || { echo "$script lacks '$want'"; return 1; }
	done
	grep -qx '# full-only' "$dir/loopback-pingpong-full.sh" ||
		{ echo "loopback-pingpong-full.sh is not full-only"; return 1; }
}

# Every row of matrix.tsv is well-formed and its name unique, tells its
# topology, and is no script's name too.
t_matrix_table() {
	awk -v tests="$TOP/tests/vm/tests" '
		/^#/ || !NF { next }
		function bad(why) { printf "row %d (%s): %s; ", NR, $1, why; err = 1 }
		NF != 9 { bad(NF " fields, want 9") }
		seen[$1]++ { bad("name twice") }
		$2 !~ /^[12]$/ { bad("hosts " $2) }
		$3 !~ /^[0-9]+$/ { bad("timeout " $3) }
		$4 != "check" && $4 != "full" { bad("tier " $4) }
		$5 !~ /^(ib_(write|read|send|atomic)_(bw|lat)|ibv_(rc|uc)_pingpong)$/ { bad("tool " $5) }
		$5 ~ /^ib_/ && $9 != "-" && $7 !~ /^[0-9]+(,[0-9]+)*$/ { bad("perftest options with sizes " $7) }
		($6 == "loopback") != ($2 == 1) || ($6 != "loopback" && $6 != "two_hosts") { bad($6 " with hosts " $2) }
		index($1, ($2 == 1 ? "loopback-" : "two-hosts-")) != 1 { bad("name does not say " $6) }
		(getline line < (tests "/" $1 ".sh")) > 0 { bad("also tests/vm/tests/" $1 ".sh") }
		END { exit err }' "$TOP/tests/vm/matrix.tsv"
}

# ---- check.sh ----

# in_check CMD...: run CMD with check.sh's functions, results in
# $WORK/check.tsv, output in $WORK/check.out.
in_check() {
	(
		# Not followed: it sets TOP (to the same value).
		# shellcheck source=/dev/null
		. "$TOP/tests/tools/check.sh"
		# shellcheck disable=SC2034 # LOGDIR is check.sh's (step's logs)
		SROCE_RESULTS=$WORK/check.tsv LOGDIR=$WORK
		: > "$SROCE_RESULTS"
		"$@" > "$WORK/check.out" 2>&1
	)
}

# stub NAME LINES RC: a runner that appends LINES and exits RC.
stub() {
	# shellcheck disable=SC2016 # $SROCE_RESULTS is the stub's
	printf '#!/bin/bash\nprintf "%s" >> "$SROCE_RESULTS"\nexit %d\n' "$2" "$3" > "$WORK/$1.sh"
}

# expect_runner_line REGEX|"": the FAIL line runner() added, or none.
expect_runner_line() {
	local got

	got=$(grep -P '^stub\trunner\t' "$WORK/check.tsv")
	if [ -z "$1" ]; then
		[ -z "$got" ] || { echo "unexpected: $got"; return 1; }
	else
		grep -qE "$1" <<< "$got" || { echo "want /$1/, got '$got'"; return 1; }
	fi
}

# A PASS line and exit 3: the status says something broke.
t_runner_lies() {
	stub lies 'stub\tx\tPASS\t\n' 3
	in_check runner stub "$WORK/lies.sh"
	expect_runner_line $'FAIL\t.*exited 3 without a FAIL line'
}

t_runner_silent() {
	stub silent '' 0
	in_check runner stub "$WORK/silent.sh"
	expect_runner_line $'FAIL\t.*wrote no result'
}

t_runner_absent() {
	in_check runner stub "$WORK/absent.sh"
	expect_runner_line $'FAIL\t.*absent'
}

# A FAIL line explains the non-zero exit: no extra line.
t_runner_fail() {
	stub fails 'stub\tx\tFAIL\twhy\n' 1
	in_check runner stub "$WORK/fails.sh"
	expect_runner_line ''
}

t_runner_ok() {
	stub ok '#expect\tstub\t1\nstub\tx\tPASS\t\n' 0
	in_check runner stub "$WORK/ok.sh"
	expect_runner_line ''
}

t_warnings_ours() {
	local got

	printf '%s\n' "  CC [M]  /w/build/6.1/drivers/infiniband/sw/sroce/sroce_qp.c" \
		"/w/build/6.1/drivers/infiniband/sw/sroce/sroce_qp.c:12:5: warning: unused variable 'x' [-Wunused-variable]" \
		"/w/build/kunit/module/tests/kunit/sroce_psn_test.c:3:1: warning: no previous prototype" \
		"/w/build/6.1/include/uapi/rdma/sroce-abi.h:7:2: warning: packed attribute" > "$WORK/w.log"
	in_check our_warnings "$WORK/w.log"
	got=$(wc -l < "$WORK/check.out")
	[ "$got" = 3 ] || { echo "found $got of 3 warnings"; return 1; }
}

# The kernel-verbs test module (tests/kmod/) is ours too: it builds with W=1
# in build/<kver>/kmod/, so a warning there fails its build step.
t_warnings_kmod() {
	local got

	printf '%s\n' "  CC [M]  /w/build/6.1.0-57-amd64/kmod/sroce_kverbs_test.o" \
		"/w/build/6.1.0-57-amd64/kmod/sroce_kverbs_test.c:40:6: warning: no previous prototype for 'f' [-Wmissing-prototypes]" \
		"/w/build/6.12.95+deb12-amd64/kmod/sroce_kverbs_test.c:9:1: warning: unused variable 'y'" > "$WORK/w.log"
	in_check our_warnings "$WORK/w.log"
	got=$(wc -l < "$WORK/check.out")
	[ "$got" = 2 ] || { echo "found $got of 2 warnings"; return 1; }
}

t_warnings_not_ours() {
	local got

	printf '%s\n' "./include/linux/compiler.h:10:1: warning: kernel header" \
		"/usr/src/linux/drivers/gpu/drm/x.c:1:1: warning: kernel driver" \
		"WARNING: modpost: missing MODULE_LICENSE() in foo.o" \
		"Skipping BTF generation for sroce.ko due to unavailability of vmlinux" > "$WORK/w.log"
	in_check our_warnings "$WORK/w.log"
	got=$(cat "$WORK/check.out")
	[ -z "$got" ] || { echo "took as ours: $got"; return 1; }
}

# A build that exits 0 but warned about our file is a FAIL build line.
t_step_warning_fails() {
	in_check step warny echo "/w/drivers/infiniband/sw/sroce/sroce_tx.c:9:1: warning: bad"
	grep -qP '^build\twarny\tFAIL\tcompiler warning: drivers/infiniband/sw/sroce/sroce_tx.c:9:1: warning: bad' \
		"$WORK/check.tsv" || { echo "got: $(cat "$WORK/check.tsv")"; return 1; }
}

# ---- lib-rdma.bash ----

# in_lib_rdma FN ARGS...: FN of the guest helpers, on the host; its output in
# $WORK/lib.out, its exit status returned (fail exits 1).
in_lib_rdma() {
	SROCE_TOP=$TOP bash -c '. "$SROCE_TOP/tests/vm/lib.sh"; . "$SROCE_TOP/tests/vm/lib-rdma.bash"; "$@"' \
		selftest "$@" > "$WORK/lib.out" 2>&1
}

# An ibv_rc_pingpong -c server's output as rdma-core 44 prints it, with
# LINES... before its summary.
pingpong_out() {
	printf '%s\n' "  local address:  LID 0x0000, QPN 0x000011, PSN 0x5f0d6b, GID ::ffff:10.0.2.15" \
		"  remote address: LID 0x0000, QPN 0x000012, PSN 0x1b3e2a, GID ::ffff:10.0.2.15" \
		"$@" \
		"8192000 bytes in 0.05 seconds = 1242.05 Mbit/sec" \
		"1000 iters in 0.05 seconds = 52.77 usec/iter"
}

t_pingpong_clean() {
	pingpong_out > "$WORK/pp.out"
	in_lib_rdma check_pingpong "$WORK/pp.out" 1000 || { cat "$WORK/lib.out"; return 1; }
}

# -c found a wrong byte: the summary lines are there, the test must fail.
t_pingpong_mismatch() {
	pingpong_out "invalid data in page 0" "invalid data in page 3" > "$WORK/pp.out"
	if in_lib_rdma check_pingpong "$WORK/pp.out" 1000; then
		echo "passed an output with 'invalid data in page'"
		return 1
	fi
	grep -q 'FAIL: data mismatch in .*invalid data in page 0' "$WORK/lib.out" ||
		{ echo "got: $(cat "$WORK/lib.out")"; return 1; }
}

# ---- real boots ----

t_vm_boot_splat() {
	local last rc

	"$TOP/tests/vm/vm-run" --kernel "$VM_KERNEL" --timeout 90 \
		"$TOP/tests/vm/selftests/fail.sh" splat > "$WORK/boot.out" 2>&1
	rc=$?
	last=$(tail -n 1 "$WORK/boot.out")
	[ "$rc" = 1 ] || { echo "exit $rc, want 1: $last"; return 1; }
	grep -q 'FAIL (kernel splat: WARNING: CPU: .* at fake/selftest.c:1 selftest)' <<< "$last" ||
		{ echo "verdict: $last"; return 1; }
}

# One shared boot: a splat (its own slice only), a pass, a case the guest
# cannot be cleaned up after, and one that must not run after it.
t_vm_boot_group() {
	local vms=$TOP/tests/vm/selftests rc i got want

	"$TOP/tests/vm/vm-run" --kernel "$VM_KERNEL" --timeout 60 --group "$WORK/vg.out" \
		"$vms/shared-splat.sh" "$vms/uname.sh" "$vms/shared-dirty.sh" "$vms/fail.sh" \
		> "$WORK/vgroup.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || { echo "exit $rc, want 1: $(tail -n 1 "$WORK/vgroup.out")"; return 1; }
	# Name, verdict and the start of the detail (the cleanup's lists the state).
	mapfile -t got < <(cut -f1,2,4 "$WORK/vg.out")
	want=($'shared-splat\tFAIL\tkernel splat: WARNING: CPU: 0 PID: 1 at fake/selftest.c:1 selftest$'
		$'uname\tPASS\t$'
		$'shared-dirty\tFAIL\tcleanup: the guest is not as it booted: netdevs: lo sdirty0;'
		$'fail\tFAIL\tnot run: the guest could not be cleaned up after shared-dirty$')
	[ "${#got[@]}" = "${#want[@]}" ] || { echo "wrote: $(cat "$WORK/vg.out")"; return 1; }
	for i in "${!want[@]}"; do
		[[ ${got[i]} =~ ^${want[i]} ]] || { echo "line $((i + 1)): '${got[i]}'"; return 1; }
	done
}

run_case() {
	local why

	if why=$("t_$1" 2>&1); then
		result "$1" PASS
	else
		result "$1" FAIL "${why:-no reason printed}"
	fi
}

# Two hosts, one leaves: the other's exchange, inside $(...), must fail
# with its reason in the verdict (before, the reason went into the captured
# output and the verdict said only "exit 1"), and a barrier before it counts
# as the test's first exchange (before, $(...) lost the count: port 20000).
t_vm_peer_lost() {
	local last rc

	"$TOP/tests/vm/vm-run" --kernel "$VM_KERNEL" --hosts 2 --timeout 90 \
		"$TOP/tests/vm/selftests/peer-lost.sh" > "$WORK/peer.out" 2>&1
	rc=$?
	last=$(tail -n 1 "$WORK/peer.out")
	[ "$rc" = 1 ] || { echo "exit $rc, want 1: $last"; return 1; }
	grep -q 'FAIL (host0: exit 1: peer did not reach exchange 20001)' <<< "$last" ||
		{ echo "verdict: $last"; return 1; }
}

# A boot waits while other runs hold every vCPU slot, and goes once one is
# free. The QEMU is a stub that prints the exit marker vm-run waits for.
t_vm_slots_wait() {
	local slots=$WORK/slots out=$WORK/slots.out rc

	mkdir -p "$slots" "$WORK/fakebin"
	cat > "$WORK/fakebin/qemu-system-x86_64" <<-'EOS'
	#!/bin/bash
	# -append "... sroce_vm.job=JOB ..." and -chardev file,id=con,path=LOG
	job=$(printf '%s\n' "$@" | sed -n 's/.*sroce_vm.job=\([^ ]*\).*/\1/p')
	con=$(printf '%s\n' "$@" | sed -n 's/^file,id=con,path=//p')
	. "$job"
	printf 'SROCE-DMESG-BEGIN-%s\nSROCE-DMESG-END-%s\nSROCE-EXIT-%s: 0\n' \
		"$SROCE_NONCE" "$SROCE_NONCE" "$SROCE_NONCE" > "$con"
	EOS
	chmod +x "$WORK/fakebin/qemu-system-x86_64"
	# Both slots held by "another run" for 3 s.
	flock "$slots/slot-0" flock "$slots/slot-1" sleep 3 &
	sleep 0.5
	PATH=$WORK/fakebin:$PATH SROCE_VM_SLOTS=2 SROCE_VM_SLOT_DIR=$slots \
		"$TOP/tests/vm/vm-run" --kernel "$VM_KERNEL" --timeout 30 "$TOP/tests/vm/selftests/uname.sh" \
		> "$out" 2>&1
	rc=$?
	wait
	[ "$rc" = 0 ] || { echo "exit $rc: $(tail -n 1 "$out")"; return 1; }
	grep -qE '^vm-run: waited [2-9]s for 1 vCPU slot' "$out" ||
		{ echo "did not wait for the slots: $(head -n 3 "$out" | tr '\n' ' ')"; return 1; }
}

# Every t_ function is a listed case: one left out would never run.
unlisted_cases() {
	local f

	for f in $(declare -F | sed -n 's/^declare -f t_//p'); do
		[[ " ${CASES[*]} vm_boot_splat vm_boot_group vm_peer_lost vm_slots_wait " == *" $f "* ]] ||
			echo "$f"
	done
}

main() {
	local c unlisted

	case "${1:-}" in
	--vm) VM_KERNEL=${2:?--vm KVER}; CASES+=(vm_boot_splat vm_boot_group vm_peer_lost vm_slots_wait) ;;
	'') ;;
	*) echo "usage: selftest.sh [--vm KVER]" >&2; exit 2 ;;
	esac
	unlisted=$(unlisted_cases)
	[ -z "$unlisted" ] || { echo "selftest.sh: t_ functions not in CASES: $unlisted" >&2; exit 2; }
	printf '#expect\tharness\t%d\n' "${#CASES[@]}" >> "$RESULTS"
	for c in "${CASES[@]}"; do
		run_case "$c"
	done
	return "$FAILED"
}

main "$@"
