#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--kernel KVER] [--quick] [--topology loopback|link|all] [--reps N]
#          [--cpus 1|2] [--points REGEX] [--parallel] [--budget SEC] [--out DIR]
#          [--link-mtu BYTES]
#
# `make bench`: perftest on rdma_rxe and on sroce in the same guest(s), same
# kernel, same run, and a report of the ratios. Boots the guest(s) with
# tests/vm/vm-run and tests/bench/bench-guest.sh inside, collects its BENCH
# lines from the console logs and writes, through tests/bench/report.py,
#   OUT/<date>-<kver>-<topology>.md   table: point, rxe, sroce, ratio, target, met?
#   OUT/<date>-<kver>-<topology>.csv  the same, with min/median/max per provider
#   OUT/<date>-<kver>-<topology>-raw.csv  every run
#   OUT/<date>-<kver>-<topology>.png  chart of the ratios
# OUT is bench/results (full runs; latest.md is refreshed) or, with --quick,
# build/bench/results (a smoke run: fewer points, 1 repeat, short runs).
# KVER may be a prefix: 6.1 or 6.12. --parallel runs the two topologies at
# the same time (three guests; faster, noisier: the report says so).
# --budget: seconds of guest time per topology (default 20 min per repeat);
# points past it are reported as skipped.
# --cpus: vCPUs per guest, default 2: with one, both perftest processes
# busy-poll the only CPU and every small-message latency is the scheduler's
# 4 ms tick, for rxe and sroce alike; with two the providers' own costs show.
# --link-mtu: eth0's MTU on both guests of the link topology (default 1500,
# path MTU 1024); 9000 gives both providers a path MTU of 4096: fewer
# frames per byte over the emulated link. The report's name says it
# (<topology>-mtu9000), and such a run never becomes latest.md.
# Nothing here asserts a speed: the exit status is non-zero only when the
# harness itself could not run.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KERNEL='' QUICK=0 TOPOLOGY=all REPS=3 CPUS=2 POINTS='' OUT='' PARALLEL=0 BUDGET=''
LINK_MTU=''

usage() {
	sed -n '4,6s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) KERNEL=$2; shift 2 ;;
		--quick) QUICK=1; shift ;;
		--topology) TOPOLOGY=$2; shift 2 ;;
		--reps) REPS=$2; shift 2 ;;
		--cpus) CPUS=$2; shift 2 ;;
		--points) POINTS=$2; shift 2 ;;
		--parallel) PARALLEL=1; shift ;;
		--budget) BUDGET=$2; shift 2 ;;
		--out) OUT=$2; shift 2 ;;
		--link-mtu) LINK_MTU=$2; shift 2 ;;
		*) usage ;;
		esac
	done
	case "$TOPOLOGY" in loopback|link|all) ;; *) usage ;; esac
	[[ -z $LINK_MTU || $LINK_MTU =~ ^[0-9]+$ ]] || usage
	[ "$QUICK" = 1 ] && REPS=1
	[ -n "$OUT" ] || OUT=$TOP/bench/results
	[ "$QUICK" = 1 ] && [ "$OUT" = "$TOP/bench/results" ] && OUT=$TOP/build/bench/results
	return 0
}

# The installed supported kernel KERNEL names exactly or by prefix (6.1 ->
# 6.1.0-50-amd64); the oldest supported one when KERNEL is empty.
resolve_kernel() {
	local k

	for k in $("$TOP/tests/tools/kernels.sh"); do
		if [ -z "$KERNEL" ] || [ "$k" = "$KERNEL" ] ||
			[[ $k == "$KERNEL".* ]] || [[ $k == "$KERNEL"-* ]]; then
			echo "$k"
			return 0
		fi
	done
	echo "bench: no supported kernel matches '$KERNEL' ($("$TOP/tests/tools/kernels.sh" | tr '\n' ' '))" >&2
	exit 2
}

build() {
	make -C "$TOP" --no-print-directory "module-$KVER" provider > "$WORK/build.log" 2>&1 ||
		{ tail -n 20 "$WORK/build.log"; echo "bench: build failed" >&2; exit 1; }
	mkdir -p "$TOP/build/bench"
	gcc -O2 -Wall -o "$TOP/build/bench/memcpy_bw" "$HERE/memcpy_bw.c"
}

load_average() { cut -d' ' -f1-3 /proc/loadavg; }

# Seconds of guest time to allow one topology (the guest skips the points
# it has no time left for and reports them as skipped).
budget() {
	if [ -n "$BUDGET" ]; then echo "$BUDGET"
	elif [ "$QUICK" = 1 ]; then echo 240
	else echo $((1200 * REPS))
	fi
}

# run_topology NAME: boot, run, copy the BENCH lines of each host's log.
run_topology() {
	local topo=$1 hosts=1 b rc=0 n log args

	[ "$topo" = link ] && hosts=2
	b=$(budget)
	args=("$topo" --reps "$REPS" --budget "$b")
	[ "$QUICK" = 1 ] && args+=(--quick)
	[ -n "$POINTS" ] && args+=(--points "$POINTS")
	[ "$topo" = link ] && [ -n "$LINK_MTU" ] && args+=(--mtu "$LINK_MTU")
	echo "bench: $topo on $KVER ($hosts guest(s), $CPUS vCPU each), up to $((b / 60)) min"
	"$TOP/tests/vm/vm-run" --kernel "$KVER" --hosts "$hosts" --cpus "$CPUS" \
		--timeout $((b + 180)) "$HERE/bench-guest.sh" "${args[@]}" \
		> "$WORK/vm-$topo.out" 2>&1 || rc=$?
	tail -n 1 "$WORK/vm-$topo.out"
	echo "vm_$topo=$(tail -n 1 "$WORK/vm-$topo.out" | sed 's/^vm-run: //')" >> "$WORK/meta"
	for ((n = 0; n < hosts; n++)); do
		log=$TOP/build/vm/logs/$KVER/bench-guest.log
		[ "$hosts" = 2 ] && log=$TOP/build/vm/logs/$KVER/bench-guest-host$n.log
		tr -d '\r' < "$log" | grep -E '^BENCH(-GUEST|-MEMCPY)? ' > "$WORK/$topo-host$n.txt" || true
		cp "$log" "$WORK/"
	done
	[ "$rc" = 0 ] || echo "bench: the $topo guest(s) failed (status $rc); reporting what they measured"
	return 0
}

main() {
	local topos stem latest start=$SECONDS

	parse_args "$@"
	KVER=$(resolve_kernel)
	WORK=$TOP/build/bench/run-$(date -u +%Y%m%d-%H%M%S)
	mkdir -p "$WORK" "$OUT"
	build
	case "$TOPOLOGY" in all) topos='loopback link' ;; *) topos=$TOPOLOGY ;; esac
	{
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "kernel=$KVER"
		echo "quick=$QUICK"
		echo "reps=$REPS"
		echo "cpus=$CPUS"
		echo "points=$POINTS"
		echo "link_mtu=$LINK_MTU"
		echo "parallel=$PARALLEL"
		echo "commit=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "host_cpus=$(nproc)"
		echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
		echo "perftest=$(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
		echo "load_start=$(load_average)"
	} > "$WORK/meta"
	for topo in $topos; do
		if [ "$PARALLEL" = 1 ]; then
			run_topology "$topo" &
		else
			run_topology "$topo"
		fi
	done
	wait
	echo "load_end=$(load_average)" >> "$WORK/meta"
	echo "duration_s=$((SECONDS - start))" >> "$WORK/meta"
	stem=$(date -u +%Y-%m-%d)-$KVER-$TOPOLOGY
	[ -n "$LINK_MTU" ] && [ "$TOPOLOGY" != loopback ] && stem+=-mtu$LINK_MTU
	[ -n "$POINTS" ] && stem+=-points-${POINTS//[^A-Za-z0-9_]/_}
	[ "$QUICK" = 1 ] && stem+=-quick
	# Debian's python3, which has python3-matplotlib (not a pyenv one on PATH).
	# A full run of the whole matrix into bench/results becomes latest.md
	# and the README's table.
	latest=()
	[ "$QUICK" = 0 ] && [ "$OUT" = "$TOP/bench/results" ] && [ -z "$POINTS" ] &&
		[ "$TOPOLOGY" = all ] && [ -z "$LINK_MTU" ] && latest=(--latest "$OUT/latest.md" --readme "$TOP/README.md")
	/usr/bin/python3 "$HERE/report.py" --meta "$WORK/meta" --out "$OUT/$stem" "${latest[@]}" \
		"$WORK"/*-host*.txt
	echo "bench: raw logs in $WORK; took $((SECONDS - start)) s"
}

main "$@"
