#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/provider/run.sh - host tests of the rdma-core provider; no kernel
# module needed. Builds the provider and the unit tests, runs them, and
# appends one "provider\t<case>\tPASS|FAIL|SKIP\t<detail>" line per case to
# $SROCE_RESULTS (see tests/README.md), printing each line as well; before
# each step, an "#expect\tprovider\t<lines it writes>" line (the unit
# binaries print their case count with --count).
#
#   SROCE_RESULTS      results file (default: none, print only)
#   SROCE_PROVIDER_O   provider build dir (default: build/provider)
#   CI                 set: cases that need the fake device FAIL instead of
#                      SKIP when it cannot be set up (no mount namespace)
#
# Exit status: 0 if no case failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
prov_src=$top/rdma-core-provider
prov_o=${SROCE_PROVIDER_O:-$top/build/provider}
lib=$prov_o/libsroce-rdmav34.so
results=${SROCE_RESULTS:-/dev/null}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# result CASE PASS|FAIL|SKIP [DETAIL]: the detail is squeezed onto one line.
result() {
	local detail=${3:-}

	detail=$(printf '%s' "$detail" | tr '\t\n' '  ' | cut -c1-300)
	printf 'provider\t%s\t%s\t%s\n' "$1" "$2" "$detail" | tee -a "$results"
	[ "$2" != FAIL ] || failed=1
}

# expect N: the next step writes N result lines. report.sh adds up a suite's
# #expect lines, so a runner that dies part-way, or a unit binary that stops
# printing, leaves fewer lines than promised: a FAIL, not a shorter pass.
expect() {
	printf '#expect\tprovider\t%d\n' "$1" >> "$results"
}

# expect_count BINARY: #expect with the case count BINARY --count prints
# (0 if it prints none: the missing lines then fail the tally).
expect_count() {
	local n

	n=$("$1" --count 2>/dev/null)
	[[ "$n" =~ ^[0-9]+$ ]] || n=0
	expect "$n"
}

build_provider() {
	expect 1
	if make --no-print-directory -C "$prov_src" O="$prov_o" >"$work/build" 2>&1; then
		result build_provider_without_warnings PASS
	else
		result build_provider_without_warnings FAIL "$(grep -m1 -E 'error|warning' "$work/build" || tail -n 1 "$work/build")"
	fi
}

# Unit binaries print their own result lines; a crash is a failure too.
run_unit() {
	local name=$1
	shift
	if ! cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$prov_src" -I"$top/include/uapi" \
		-o "$work/$name" "$@" >"$work/cc" 2>&1; then
		expect 1
		result "${name}_builds" FAIL "$(head -n 1 "$work/cc")"
		return
	fi
	expect_count "$work/$name"
	"$work/$name" >"$work/$name.out" 2>&1
	local rc=$?
	while IFS=$'\t' read -r _ tcase verdict detail; do
		result "$tcase" "$verdict" "$detail"
	done <"$work/$name.out"
	[ "$rc" -le 1 ] || result "${name}_completes" FAIL "exit status $rc"
}

# Every libibverbs symbol must come from IBVERBS_PRIVATE_34, and nothing is
# exported: the constructor is the provider's only entry point.
check_symbols() {
	local dyn

	expect 2
	dyn=$(objdump -T "$lib" 2>&1)
	if grep -q '(IBVERBS_PRIVATE_34) verbs_register_driver_34$' <<<"$dyn" &&
	   ! grep -E 'IBVERBS' <<<"$dyn" | grep -qv 'IBVERBS_PRIVATE_34'; then
		result so_binds_ibverbs_private_34 PASS
	else
		result so_binds_ibverbs_private_34 FAIL "$(grep IBVERBS <<<"$dyn" | grep -v PRIVATE_34 | head -n 2)"
	fi
	if grep -E '^[0-9a-f]+ g ' <<<"$dyn" | grep -vq ' \*UND\*'; then
		result so_exports_no_symbols FAIL "$(grep -E '^[0-9a-f]+ g ' <<<"$dyn" | grep -v UND | head -n 2)"
	else
		result so_exports_no_symbols PASS
	fi
}

# A library that claims another private ABI must stop the build before any
# compiler runs, saying which versions were found and wanted.
check_wrong_pabi_refused() {
	local fake=$work/fakeverbs o=$work/wrong-pabi

	expect 2
	mkdir -p "$fake" "$o"
	printf 'IBVERBS_PRIVATE_33 { global: verbs_register_driver_33; local: *; };\n' >"$fake/map"
	printf 'void verbs_register_driver_33(const void *ops) { (void)ops; }\n' >"$fake/fake.c"
	cc -shared -fPIC -Wl,--version-script="$fake/map" -o "$fake/libibverbs.so.1" "$fake/fake.c"

	make --no-print-directory -C "$prov_src" O="$o" IBVERBS_LIB="$fake/libibverbs.so.1" >"$work/out" 2>&1
	local rc=$?
	if [ $rc -ne 0 ] && grep -q 'IBVERBS_PRIVATE_33, but this provider is written for IBVERBS_PRIVATE_34' "$work/out" &&
	   ! ls "$o"/*.o >/dev/null 2>&1; then
		result make_refuses_other_private_abi PASS
	else
		result make_refuses_other_private_abi FAIL "rc=$rc: $(tail -n 2 "$work/out")"
	fi

	make --no-print-directory -C "$prov_src" O="$o" IBVERBS_LIB=/bin/true >"$work/out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'IBVERBS_PRIVATE_<none>' "$work/out"; then
		result make_refuses_library_without_private_abi PASS
	else
		result make_refuses_library_without_private_abi FAIL "rc=$rc: $(tail -n 2 "$work/out")"
	fi
}

# On a host without rdma devices libibverbs never dlopen()s providers, so
# ibv_devices alone proves little; run it anyway (any loader complaint would
# be a bug) and let the fake-device cases below do the real loading.
check_ibv_devices_quiet() {
	expect 1
	if ! command -v ibv_devices >/dev/null; then
		result ibv_devices_quiet_with_provider SKIP "ibverbs-utils not installed"
		return
	fi
	RDMAV_DRIVERS=$prov_o/libsroce IBV_SHOW_WARNINGS=1 ibv_devices >"$work/out" 2>&1
	if grep -qiE 'warning|error|sroce' "$work/out"; then
		result ibv_devices_quiet_with_provider FAIL "$(grep -iE 'warning|error|sroce' "$work/out" | head -n 2)"
	else
		result ibv_devices_quiet_with_provider PASS
	fi
}

# The verdict of a case that needs the fake device when it cannot be set up
# (unshare -m refused: no root, a container). SKIP on a developer's machine;
# in CI the machine is ours to set up, and a skip there would hide the
# whole fake-device layer behind a green tally.
unavailable() {
	if [ -n "${CI:-}" ]; then echo FAIL; else echo SKIP; fi
}

# fake_run NAME ABI COMMAND...: COMMAND's output in $work/out, with a
# provider-less libibverbs seeing one fake device (see fake-device.sh).
fake_run() {
	local name=$1 abi=$2
	shift 2
	env IBV_SHOW_WARNINGS=1 RDMAV_DRIVERS="$prov_o/libsroce" \
		"$here/fake-device.sh" "$name" "$abi" -- "$@" >"$work/out" 2>&1
}

# expect_output CASE PATTERN: PASS if the last fake_run printed PATTERN.
expect_output() {
	if grep -qE "$2" "$work/out"; then
		result "$1" PASS
	else
		result "$1" FAIL "wanted /$2/, got: $(head -n 4 "$work/out")"
	fi
}

check_fake_device() {
	local cases="fake_sroce0_is_claimed_by_provider fake_device_outside_abi_range_is_refused"
	cases+=" fake_lookalike_name_is_not_claimed fake_open_rejects_foreign_ucontext_abi"
	expect "$(wc -w <<<"$cases")"

	# Control: without the provider, libibverbs must see the fake device.
	IBV_SHOW_WARNINGS=1 "$here/fake-device.sh" sroce0 1 -- ibv_devices >"$work/out" 2>&1
	local rc=$?
	if [ $rc -ne 0 ] || ! grep -q 'sroce0' "$work/out"; then
		for c in $cases; do
			result "$c" "$(unavailable)" "fake sysfs device not visible here (rc=$rc: $(head -n 1 "$work/out"))"
		done
		return
	fi
	fake_device_usable=yes

	fake_run sroce0 1 ibv_devices
	if grep -q 'no userspace device-specific driver found for sroce0' "$work/out"; then
		result fake_sroce0_is_claimed_by_provider FAIL "$(head -n 3 "$work/out")"
	else
		expect_output fake_sroce0_is_claimed_by_provider '^[[:space:]]+sroce0[[:space:]]+0002c9fffe000001'
	fi

	fake_run sroce0 2 ibv_devices
	expect_output fake_device_outside_abi_range_is_refused \
		'Driver sroce does not support the kernel ABI of 2 \(supports 1 to 1\)'

	# libibverbs' fnmatch() accepts "...Nsroce..."; the provider must not.
	fake_run mlxNsroce0 1 ibv_devices
	expect_output fake_lookalike_name_is_not_claimed \
		'no userspace device-specific driver found for mlxNsroce0'

	# The fake kernel answers GET_CONTEXT with zeros: abi_version 0.
	fake_run sroce0 1 ibv_devinfo -d sroce0
	expect_output fake_open_rejects_foreign_ucontext_abi \
		'libsroce: sroce0: refusing device: ABI version mismatch \(kernel abi_version 0, provider 1\)'
}

# The full success path: open, query device and port, PD, close, with
# mock_uverbs.c answering like sroce.ko would.
check_mock_kernel() {
	local cases="mock_open_query_pd_close_succeeds mock_open_fails_eproto_on_abi_2"
	expect "$(wc -w <<<"$cases")"

	if ! cc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -I"$top/include/uapi" \
		-o "$work/mock_uverbs.so" "$here/mock_uverbs.c" "$here/mock_objects.c" \
		-ldl >"$work/cc" 2>&1 ||
	   ! cc -std=gnu11 -Wall -Wextra -Werror -o "$work/open_device" \
		"$here/open_device.c" -libverbs >>"$work/cc" 2>&1; then
		for c in $cases; do result "$c" FAIL "$(head -n 1 "$work/cc")"; done
		return
	fi
	if [ "$fake_device_usable" != yes ]; then
		for c in $cases; do result "$c" "$(unavailable)" "fake sysfs device not visible here"; done
		return
	fi

	if fake_run sroce0 1 env LD_PRELOAD="$work/mock_uverbs.so" "$work/open_device"; then
		result mock_open_query_pd_close_succeeds PASS
	else
		result mock_open_query_pd_close_succeeds FAIL "$(grep -m1 -E 'FAILED|libsroce' "$work/out")"
	fi

	fake_run sroce0 1 env MOCK_UCTX_ABI=2 LD_PRELOAD="$work/mock_uverbs.so" "$work/open_device"
	if grep -q 'open_device: FAILED Protocol error' "$work/out"; then
		expect_output mock_open_fails_eproto_on_abi_2 \
			'refusing device: ABI version mismatch \(kernel abi_version 2, provider 1\)'
	else
		result mock_open_fails_eproto_on_abi_2 FAIL "errno was not EPROTO: $(head -n 2 "$work/out")"
	fi
}

# The data path against the mock kernel: each case of test_dp_*.c prints
# its own result line, as the unit binaries do.
check_datapath() {
	if ! cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$top/include/uapi" \
		-o "$work/datapath" "$here"/dp.c "$here"/test_dp_*.c -pthread -libverbs -ldl \
		>"$work/cc" 2>&1; then
		expect 1
		result datapath_tests_build FAIL "$(grep -m1 -E 'error|warning' "$work/cc")"
		return
	fi
	if [ ! -f "$work/mock_uverbs.so" ] || [ "$fake_device_usable" != yes ]; then
		expect 1
		result datapath_tests "$(unavailable)" "mock kernel or fake sysfs device unavailable"
		return
	fi
	expect_count "$work/datapath"
	fake_run sroce0 1 env LD_PRELOAD="$work/mock_uverbs.so" "$work/datapath"
	local rc=$?
	while IFS=$'\t' read -r suite tcase verdict detail; do
		[ "$suite" = provider ] && result "$tcase" "$verdict" "$detail"
	done <"$work/out"
	[ "$rc" -le 1 ] || result datapath_tests_complete FAIL "exit status $rc: $(grep -v '^provider' "$work/out" | head -n 2)"
}

fake_device_usable=no
build_provider
run_unit test_check "$here/test_check.c" "$prov_src/sroce_check.c"
run_unit test_check_rings "$here/test_check_rings.c" "$prov_src/sroce_check_rings.c"
run_unit test_ring "$here/test_ring.c"
run_unit test_qp_state "$here/test_qp_state.c"
if [ -f "$lib" ]; then
	check_symbols
	check_ibv_devices_quiet
	check_fake_device
	check_mock_kernel
	check_datapath
fi
check_wrong_pabi_refused
exit $failed
