#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run sroce's KUnit suites: build the KUnit/debug kernel and sroce.ko
# (kernel.sh, cached), boot the kernel in QEMU with a busybox initramfs that
# loads and unloads sroce.ko (guest-init), and turn the serial console into
# result lines appended to $SROCE_RESULTS (default build/kunit/results.tsv):
#
#     kunit<TAB><suite>.<case><TAB>PASS|FAIL|SKIP<TAB><detail>
#
# plus run.* lines for the steps around the suites: boot, insmod, rmmod,
# kernel-log (no BUG/WARNING/KASAN/lockdep splat after insmod) and kmemleak.
# A build failure, a hang, a crash or garbled output is a FAIL line, never
# silence. Exits 1 if any line it wrote is FAIL.
#
# Options: --no-build (use build/kunit as it is), --timeout SECONDS (QEMU,
# default 300), --parse CONSOLE_LOG (no build, no boot: only turn a saved
# console log into results, to debug this script or re-read an old run).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
OUT=$TOP/build/kunit
RESULTS=${SROCE_RESULTS:-$OUT/results.tsv}
TIMEOUT=300
FIRST_BOOT='' QEMU_RC=''
BUILD=1
PARSE=

# Kernel messages that mean the code under test broke something, even when
# every KUnit expectation held. lockdep and KASAN reports start with
# "WARNING:" and "BUG:"; DEBUG_OBJECTS reports with "ODEBUG:".
SPLAT='BUG:|WARNING:|Oops|general protection fault|Kernel panic|kernel BUG at|UBSAN:|ODEBUG:|INFO: |Call Trace:'

log() { echo "kunit: $*" >&2; }

# Every line this run writes goes through here, so the exit status and the
# summary count exactly what was appended to $RESULTS.
RUN_LINES=$(mktemp)
trap 'rm -f "$RUN_LINES"' EXIT

result() {
	printf 'kunit\t%s\t%s\t%s\n' "$1" "$2" "${3:-}" >> "$RUN_LINES"
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--no-build) BUILD=0 ;;
		--timeout) TIMEOUT=$2; shift ;;
		--parse) PARSE=$2; shift ;;
		*) echo "usage: $0 [--no-build] [--timeout SECONDS] [--parse CONSOLE_LOG]" >&2; exit 2 ;;
		esac
		shift
	done
}

build() {
	local err

	# tee writes to our inherited stderr; reopening /dev/stderr would
	# truncate a log file the caller redirected it to.
	if [ "$BUILD" = 1 ] &&
	   ! SROCE_KUNIT_LOCKED=1 "$HERE/kernel.sh" build 2>&1 | tee "$OUT/kernel-build.log" >&2; then
		err=$(tail -n 1 "$OUT/kernel-build.log")
		result run.build FAIL "${err#kunit-kernel: }"
		return 1
	fi
	if [ ! -e "$OUT/bzImage" ] || [ ! -e "$OUT/module/sroce.ko" ]; then
		result run.build FAIL "no $OUT/bzImage or module/sroce.ko (run tests/kunit/kernel.sh build)"
		return 1
	fi
}

# A static busybox, the init script and the module: nothing else is needed
# because everything the module depends on is built into the kernel.
make_initramfs() {
	local root=$OUT/initramfs

	rm -rf "$root"
	mkdir -p "$root"/{bin,dev,proc,sys,tmp}
	cp /bin/busybox "$root/bin/busybox"
	cp "$HERE/guest-init" "$root/init"
	chmod +x "$root/init"
	cp "$OUT/module/sroce.ko" "$root/sroce.ko"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT/initramfs.cpio.gz"
}

# -no-reboot turns the guest's reboot -f (and panic=-1) into a QEMU exit.
# oops=panic: an oops in a case leaves KUnit waiting 300 s for the dead test
# thread; ending the run right after the splat is printed is faster and the
# parser still names the suite that did not finish. WARNINGs do not panic.
# no5lvl: see DEBUG_KERNEL_ARGS in tests/vm/vm-run (a false KASAN report at
# boot under QEMU's -cpu max).
boot() {
	local console=$1 rc=0

	log "booting $(cat "$OUT/kernel.release") under QEMU (timeout ${TIMEOUT}s)"
	timeout "$TIMEOUT" qemu-system-x86_64 \
		-accel tcg,thread=multi -cpu max -smp 2 -m 512 \
		-nodefaults -no-reboot -display none -monitor none \
		-serial "file:$console" \
		-kernel "$OUT/bzImage" -initrd "$OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 ignore_loglevel oops=panic panic=-1 printk.devkmsg=on kasan_multi_shot no5lvl" \
		< /dev/null || rc=$?
	# QEMU writes CRLF, and nothing if it never started.
	touch "$console"
	sed -i 's/\r$//' "$console"
	echo "$rc"
}

# boot_until_insmod CONSOLE: boot; boot once more if the guest never got
# to insmod. Before that marker no sroce code has run, so a second boot
# cannot hide a sroce bug; the first console is kept as CONSOLE.first and
# run.boot's detail says it happened. Sets QEMU_RC (the last boot's) and
# FIRST_BOOT; no subshell, or FIRST_BOOT would be lost.
boot_until_insmod() {
	local console=$1 last

	rm -f "$console" "$console.first"
	QEMU_RC=$(boot "$console")
	has_marker "$console" insmod-begin && return
	last=$(grep -v '^\s*$' "$console" | tail -n 1 | sed 's/^\[ *[0-9.]*\] //' | cut -c1-160)
	log "the guest never reached insmod (qemu rc $QEMU_RC), last line: $last; booting again"
	tail -n 15 "$console" | sed 's/^/  | /' >&2
	mv "$console" "$console.first"
	FIRST_BOOT="the first boot never reached insmod (qemu rc $QEMU_RC: ${last:-no output}), see $console.first"
	QEMU_RC=$(boot "$console")
}

# Print the value of the last "SROCE-KUNIT: <key>=<value>" marker.
marker_value() {
	sed -n "s/.*SROCE-KUNIT: $2=\([-0-9]*\).*/\1/p" "$1" | tail -n 1
}

has_marker() {
	grep -q "SROCE-KUNIT: $2\$" "$1"
}

# The console from the insmod marker on, so boot noise is not blamed on sroce;
# all of it when the guest never got that far.
after_insmod() {
	if has_marker "$1" insmod-begin; then
		sed -n '/SROCE-KUNIT: insmod-begin/,$p' "$1"
	else
		cat "$1"
	fi
}

check_steps() {
	local console=$1 qemu_rc=$2 rc last

	# The panic message says more than the register dump that follows it.
	last=$( { grep -m 1 'Kernel panic' "$console" || grep -v '^\s*$' "$console" | tail -n 1; } |
		sed 's/^\[ *[0-9.]*\] //' | cut -c1-200)
	if ! has_marker "$console" insmod-begin; then
		result run.boot FAIL "guest never reached insmod (qemu rc $qemu_rc): $last${FIRST_BOOT:+; $FIRST_BOOT}"
		return
	fi
	result run.boot PASS "$FIRST_BOOT"
	rc=$(marker_value "$console" insmod-rc)
	case $rc in
	0) result run.insmod PASS ;;
	"") result run.insmod FAIL "guest died during insmod: $last" ;;
	*) result run.insmod FAIL "insmod sroce.ko exited $rc" ;;
	esac
	rc=$(marker_value "$console" rmmod-rc)
	case $rc in
	0) result run.rmmod PASS ;;
	"") [ "$(marker_value "$console" insmod-rc)" != 0 ] ||
		result run.rmmod FAIL "guest died during rmmod: $last" ;;
	*) result run.rmmod FAIL "rmmod sroce exited $rc" ;;
	esac
	if ! has_marker "$console" finished; then
		[ "$qemu_rc" = 124 ] && last="timed out after ${TIMEOUT}s; last line: $last"
		result run.complete FAIL "guest did not finish (qemu rc $qemu_rc): $last"
	fi
}

check_kernel_log() {
	local console=$1 first

	first=$(after_insmod "$console" | grep -E -m 1 "$SPLAT" | sed 's/^\[ *[0-9.]*\] //') || true
	if [ -n "$first" ]; then
		result run.kernel-log FAIL "$first"
	else
		result run.kernel-log PASS
	fi
}

# The report printed between a phase's kmemleak markers.
kmemleak_section() {
	sed -n "/SROCE-KUNIT: kmemleak-$2-begin/,/SROCE-KUNIT: kmemleak-$2-end/p" "$1"
}

# Where the first leaked object was allocated: its first backtrace frame that
# is not the allocator itself.
first_leak_site() {
	grep -E '^ +\[<[0-9a-f]+>\] ' | sed 's/^ *\[<[0-9a-f]*>\] //' |
		grep -m 1 -vE '^(__)?(kmalloc|kmem_cache|kzalloc|kvmalloc|krealloc|kmemdup|kstrdup|vmalloc|__vmalloc|alloc_pages|slab|__alloc|kmalloc_trace)' || true
}

check_kmemleak() {
	local console=$1 loaded unloaded n_loaded n_unloaded

	if has_marker "$console" kmemleak-unavailable; then
		result run.kmemleak SKIP "no /sys/kernel/debug/kmemleak in the guest"
		return
	fi
	if has_marker "$console" kmemleak-broken; then
		result run.kmemleak FAIL "kmemleak refused to scan (disabled itself? see the console)"
		return
	fi
	if ! has_marker "$console" kmemleak-unloaded-end; then
		# A guest that died early is already a run.complete failure.
		! has_marker "$console" finished ||
			result run.kmemleak FAIL "guest finished without a kmemleak report"
		return
	fi
	loaded=$(kmemleak_section "$console" loaded)
	unloaded=$(kmemleak_section "$console" unloaded)
	n_loaded=$(grep -c 'unreferenced object' <<< "$loaded" || true)
	n_unloaded=$(grep -c 'unreferenced object' <<< "$unloaded" || true)
	if [ $((n_loaded + n_unloaded)) -eq 0 ]; then
		result run.kmemleak PASS
		return
	fi
	result run.kmemleak FAIL "$n_loaded leaked while loaded, $n_unloaded after rmmod; first from $(
		printf '%s\n%s\n' "$loaded" "$unloaded" | first_leak_site) (see $console)"
}

check_suites() {
	local console=$1 lines

	lines=$(after_insmod "$console" | awk -v SPLAT="$SPLAT" -f "$HERE/ktap.awk")
	if [ -n "$lines" ]; then
		# File names in KUnit messages are absolute paths into the copy.
		echo "${lines//$OUT\/module\//}" >> "$RUN_LINES"
	else
		result run.suites FAIL "no KUnit output after insmod (kernel without CONFIG_KUNIT, or no suite in sroce.ko?)"
	fi
}

check_console() {
	check_steps "$@"
	check_suites "$1"
	check_kernel_log "$1"
	check_kmemleak "$1"
}

summary() {
	local pass fail skip

	pass=$(grep -c $'\tPASS\t' "$RUN_LINES" || true)
	fail=$(grep -c $'\tFAIL\t' "$RUN_LINES" || true)
	skip=$(grep -c $'\tSKIP\t' "$RUN_LINES" || true)
	grep -v $'\tPASS\t' "$RUN_LINES" | cut -f2- | sed 's/^/  /' >&2 || true
	log "$pass passed, $fail failed, $skip skipped (console: ${PARSE:-$OUT/console.log})"
	mkdir -p "$(dirname "$RESULTS")"
	cat "$RUN_LINES" >> "$RESULTS"
	[ "$fail" = 0 ]
}

main() {
	local console=$OUT/console.log

	parse_args "$@"
	mkdir -p "$OUT"
	[ -n "${SROCE_RESULTS:-}" ] || : > "$RESULTS"
	if [ -n "$PARSE" ]; then
		console=$(mktemp)
		tr -d '\r' < "$PARSE" > "$console"
		check_console "$console" "?"
		rm -f "$console"
	else
		# One run at a time per checkout: kernel.sh takes the same lock, so
		# a concurrent build cannot swap the kernel or module under us.
		exec 8> "$OUT/.lock"
		flock 8
		build || { summary; return; }
		make_initramfs
		boot_until_insmod "$console"
		check_console "$console" "$QEMU_RC"
	fi
	summary
}

main "$@"
