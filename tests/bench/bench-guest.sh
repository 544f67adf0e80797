#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-guest.sh TOPOLOGY [--quick] [--reps N] [--budget SEC] [--points REGEX]
#                [--providers "rxe sroce"] [--mtu BYTES]
#
# The guest half of `make bench` (tests/bench/bench.sh boots it with vm-run).
# TOPOLOGY is loopback (one guest, client and server on one device) or link
# (two guests: host 0 serves, host 1 connects over the virtual link).
# --mtu: eth0's MTU (both guests run with the same); the providers' active
# MTU, which perftest takes as path MTU, follows it (9000 -> 4096).
#
# For each repeat, each provider in turn (load it, run the whole matrix,
# unload it: rdma_rxe and sroce cannot both own UDP 4791; the order flips
# every repeat), so that a change in the machine's load hits both alike. Every run prints one line on the
# console, which the host collects:
#
#   BENCH topo=T provider=P rep=N point=P side=S status=ok|fail|skip [key=value...]
#
# side: guest (loopback: the one guest), client or server (link). Keys: bw
# (MiB/s), mpps, lat_min/lat_typ/lat_avg/lat_p99/lat_p999/lat_max (usec),
# cpu_busy and cpu_kern (% of the guest's CPU time during the run, kernel =
# system + irq + softirq), secs (wall time), why (failure).
# NVMe-oF points (tool "nvmf") add iops and bw_kib; their lat_* are fio's
# completion latency (clat: submission to completion).
# A run that does not finish within its timeout is a failed point, not a hang.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
. "$SROCE_TOP/tests/vm/lib-nvmeof.bash"

TOPO='' QUICK=0 REPS=3 BUDGET=3000 POINTS='' PROVIDERS='rxe sroce' MTU=''
PROVIDER_PATH=$RDMAV_DRIVERS	# rxe_setup unsets it; sroce needs it back
MEMCPY_BW=$SROCE_TOP/build/bench/memcpy_bw
OUT=/tmp/bench
START=$SECONDS

parse_args() {
	TOPO=${1:-}
	shift || true
	while [ $# -gt 0 ]; do
		case "$1" in
		--quick) QUICK=1; shift ;;
		--reps) REPS=$2; shift 2 ;;
		--budget) BUDGET=$2; shift 2 ;;
		--points) POINTS=$2; shift 2 ;;
		--providers) PROVIDERS=$2; shift 2 ;;
		--mtu) MTU=$2; shift 2 ;;
		*) fail "unknown argument $1" ;;
		esac
	done
	case "$TOPO" in loopback|link) ;; *) fail "topology must be loopback or link" ;; esac
}

# --- the matrix ------------------------------------------------------------------
# One point a line: NAME SIZE TIMEOUT TOOL ARGS... Iterations are set so that
# a point takes a few seconds on rdma_rxe under TCG; the timeout bounds a
# stalled run.

matrix_full() {
	local tool

	for tool in write read send; do
		echo "${tool}_bw 64 90 ib_${tool}_bw -s 64 -n 2000"
		echo "${tool}_bw 4096 90 ib_${tool}_bw -s 4096 -n 2000"
		echo "${tool}_bw 65536 120 ib_${tool}_bw -s 65536 -n 400"
		echo "${tool}_bw 1048576 120 ib_${tool}_bw -s 1048576 -n 40"
	done
	echo "msg_rate 8 90 ib_write_bw -s 8 -q 4 -t 256 -n 2000"
	for tool in write send read; do
		echo "${tool}_lat 8 120 ib_${tool}_lat -s 8 -n 200"
		echo "${tool}_lat 4096 120 ib_${tool}_lat -s 4096 -n 200"
	done
	echo "atomic_lat 8 120 ib_atomic_lat -n 200"
	matrix_nvmf 10
}

# NVMe over Fabrics (issue 16): fio on an nvme-rdma namespace, 4 KiB random
# reads at queue depth 1 and 32, 128 KiB sequential reads; RUNTIME seconds
# each. Lines "NAME SIZE TIMEOUT nvmf FIO-OPTIONS...".
matrix_nvmf() {
	local common="--runtime=$1 --size=${NVMF_BENCH_MIB}M"

	echo "nvmf_randread_qd1 4096 60 nvmf --rw=randread --bs=4k --iodepth=1 $common"
	echo "nvmf_randread_qd32 4096 60 nvmf --rw=randread --bs=4k --iodepth=32 $common"
	echo "nvmf_seqread 131072 60 nvmf --rw=read --bs=128k --iodepth=8 $common"
}

# QUICK=1: one point per kind of transfer, short runs: a smoke test of the
# whole pipeline (about 4 minutes for both topologies on a busy 2-core host).
matrix_quick() {
	echo "write_bw 65536 60 ib_write_bw -s 65536 -n 100"
	echo "read_bw 65536 60 ib_read_bw -s 65536 -n 100"
	echo "send_bw 4096 60 ib_send_bw -s 4096 -n 500"
	echo "msg_rate 8 60 ib_write_bw -s 8 -q 4 -t 256 -n 500"
	echo "write_lat 8 60 ib_write_lat -s 8 -n 100"
	echo "atomic_lat 8 60 ib_atomic_lat -n 100"
	matrix_nvmf 3
}

matrix() {
	if [ "$QUICK" = 1 ]; then matrix_quick; else matrix_full; fi |
		awk -v re="$POINTS" 're == "" || ($1 "/" $2) ~ re'
}

# --- measurements ---------------------------------------------------------------

# "total idle kernel" jiffies of all CPUs from /proc/stat.
cpu_sample() {
	awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6, $4 + $7 + $8 }' /proc/stat
}

# cpu_usage BEFORE AFTER: "cpu_busy=X cpu_kern=Y" in % of the CPU time between.
cpu_usage() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		split(a, x, " "); split(b, y, " "); t = y[1] - x[1]
		if (t <= 0) { print "cpu_busy=nan cpu_kern=nan"; exit }
		printf "cpu_busy=%.1f cpu_kern=%.1f\n", 100 * (t - (y[2] - x[2])) / t, 100 * (y[3] - x[3]) / t
	}'
}

# perf_result KIND OUT: the client's first result row as key=value pairs
# (bw: "#bytes #iterations peak average msgrate"; lat: "#bytes #iterations
# min max typical avg stdev p99 p99.9"), or nothing if a field we use is not
# a number or no message went through (stdev may be -nan: not used).
perf_result() {
	perf_rows "$2" | head -n 1 | awk -v kind="$1" '
		function num(i) { return $i ~ /^[0-9]+(\.[0-9]*)?$/ }
		kind == "bw" && num(4) && num(5) && $5 > 0 { printf "bw=%s mpps=%s\n", $4, $5 }
		kind == "lat" && num(3) && num(4) && num(5) && num(6) && num(8) && num(9) {
			printf "lat_min=%s lat_max=%s lat_typ=%s lat_avg=%s lat_p99=%s lat_p999=%s\n",
				$3, $4, $5, $6, $8, $9
		}'
}

# report REP POINT SIDE STATUS [KEY=VALUE...]: the line the host collects
# (one write, so that nothing interleaves inside it).
report() {
	local rep=$1 point=$2 side=$3 status=$4

	shift 4
	printf 'BENCH topo=%s provider=%s rep=%s point=%s side=%s status=%s %s\n' \
		"$TOPO" "$PROVIDER" "$rep" "$point" "$side" "$status" "$*"
}

# why_failed RC OUT: a one-word-ish reason for the report line: timeout,
# perftest's first complaint, or a result row without a message rate.
why_failed() {
	local said

	case "$1" in 124|137) echo "why=timeout"; return ;; esac
	# perftest: "Completion with error at client" then "Failed status N: ...".
	said=$(grep -iE 'error|fail|couldn|unable|wrong' "$2" | head -n 2 | tr '\n' ' ' || true)
	if [ -z "$said" ] && [ "$1" = 0 ]; then
		said="no-result:$(perf_rows "$2" | head -n 1)"
	fi
	echo "why=exit-$1:$(echo "$said" | tr -c 'A-Za-z0-9.,:_-' '_' | tr -s '_' | cut -c1-60)"
}

# show_failure OUT...: what perftest said, for the console log. Never fails:
# a point's failure must not end the run (set -e), even when perftest said
# nothing.
show_failure() {
	{ grep -v -E '^ (GID|local address|remote address)' "$@" | grep -v -- '----' |
		tail -n 12; } || true
}

over_budget() { [ $((SECONDS - START)) -ge "$BUDGET" ]; }

# exchange VALUE SECONDS: swap a line with the peer (lib.sh's peer_exchange),
# the peer's in EXCHANGED. Called in this shell, not in $(...), so that the
# sequence number (the TCP port) advances alike on both hosts: a reused port
# could take a message meant for the previous exchange. If the peer never
# comes, peer_exchange fails the script: the EXIT trap shows why.
exchange() {
	peer_exchange "$1" "$2" > "$OUT/exchange"
	EXCHANGED=$(head -n 1 "$OUT/exchange")
}

# sync_hosts NAME: both hosts meet here.
sync_hosts() {
	exchange "$1" 120
	[ "$EXCHANGED" = "$1" ] || fail "met the peer at '$EXCHANGED' instead of '$1'"
	log "in step with the peer at $1"
}

# link_carries MTU: a full-size frame crosses the link (an ICMP echo of MTU
# bytes; the peer sets its MTU at the same time, hence the wait), or the run
# stops: a link that drops big frames would measure retransmissions.
link_carries() {
	wait_for 20 busybox ping -c 1 -W 2 -s $(($1 - 28)) "$SROCE_PEER_IP" > /dev/null ||
		fail "a $1-byte frame does not cross the link to $SROCE_PEER_IP"
	log "the link carries $1-byte frames"
}

# --- one point, one guest ----------------------------------------------------------

# point_loopback REP NAME SIZE TIMEOUT TOOL ARGS...
point_loopback() {
	local rep=$1 point=$2/$3 limit=$4 tool=$5 kind out before after t0 rc=0 srv_rc=0 res

	shift 5
	kind=${tool##*_}
	out=$OUT/$PROVIDER-$rep-${point//\//-}
	if over_budget; then
		report "$rep" "$point" guest skip why=time-budget
		return
	fi
	next_port
	timeout "$limit" "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F -p "$PERF_PORT" "$@" \
		> "$out.server" 2>&1 &
	SERVER_PID=$!
	if ! wait_for 30 tcp_listening "$PERF_PORT"; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		report "$rep" "$point" guest fail "$(why_failed 1 "$out.server")"
		return
	fi
	before=$(cpu_sample); t0=$(date +%s.%N)
	timeout "$limit" "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F -p "$PERF_PORT" "$@" 127.0.0.1 \
		> "$out.client" 2>&1 || rc=$?
	after=$(cpu_sample)
	wait "$SERVER_PID" || srv_rc=$?
	res=$(perf_result "$kind" "$out.client" || true)
	if [ "$rc" = 0 ] && [ -n "$res" ]; then
		report "$rep" "$point" guest ok "$res $(cpu_usage "$before" "$after") secs=$(elapsed "$t0")"
	else
		[ "$rc" = 0 ] && rc=$srv_rc
		report "$rep" "$point" guest fail "$(why_failed "$rc" "$out.client")"
		show_failure "$out.client" "$out.server"
	fi
}

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# --- one point, two guests ---------------------------------------------------------
# Host 0 serves, host 1 connects. Host 0 decides whether the point runs (its
# server listens, the budget allows) and tells host 1; both then meet again
# when the run is over, whatever its outcome.

point_link() {
	local rep=$1 point=$2/$3 limit=$4 tool=$5 kind out go before after t0 rc=0 res

	shift 5
	kind=${tool##*_}
	out=$OUT/$PROVIDER-$rep-${point//\//-}
	next_port
	if [ "$SROCE_HOST" = 0 ]; then
		go=go
		if over_budget; then
			go=skip
		else
			timeout "$limit" "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F -p "$PERF_PORT" "$@" \
				> "$out.server" 2>&1 &
			SERVER_PID=$!
			wait_for 30 tcp_listening "$PERF_PORT" || go=nolisten
		fi
		exchange "$go" 60
		case "$go" in
		skip) report "$rep" "$point" server skip why=time-budget ;;
		nolisten)
			kill "$SERVER_PID" 2>/dev/null || true
			wait "$SERVER_PID" 2>/dev/null || true
			report "$rep" "$point" server fail "why=server-not-listening" ;;
		go)
			before=$(cpu_sample); t0=$(date +%s.%N)
			wait "$SERVER_PID" || rc=$?
			after=$(cpu_sample)
			if [ "$rc" = 0 ]; then
				report "$rep" "$point" server ok "$(cpu_usage "$before" "$after") secs=$(elapsed "$t0")"
			else
				report "$rep" "$point" server fail "$(why_failed "$rc" "$out.server")"
				show_failure "$out.server"
			fi ;;
		esac
	else
		exchange ready 60
		go=$EXCHANGED
		if [ "$go" = go ]; then
			before=$(cpu_sample); t0=$(date +%s.%N)
			timeout "$limit" "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F -p "$PERF_PORT" "$@" \
				"$SROCE_PEER_IP" > "$out.client" 2>&1 || rc=$?
			after=$(cpu_sample)
			[ -n "$MTU" ] && log "perftest path MTU: $(grep -m 1 -o 'Mtu *: *[0-9]*' "$out.client" || true)"
			res=$(perf_result "$kind" "$out.client" || true)
			if [ "$rc" = 0 ] && [ -n "$res" ]; then
				report "$rep" "$point" client ok "$res $(cpu_usage "$before" "$after") secs=$(elapsed "$t0")"
			else
				report "$rep" "$point" client fail "$(why_failed "$rc" "$out.client")"
				show_failure "$out.client"
			fi
		else
			report "$rep" "$point" client skip "why=server-$go"
		fi
	fi
	exchange finished $((limit + 60))
}

# --- NVMe over Fabrics points ---------------------------------------------------------
# The target (nvmet-rdma, a brd ramdisk of NVMF_BENCH_MIB) and the host
# (nvme-rdma) are set up at a pass's first nvmf point and taken down with
# its provider: loopback both on the one device, link the target on host
# 0 and the host on host 1. Only host 1 (or the one guest) runs fio; host
# 0 serves and meets it when the point is over.
NVMF_BENCH_MIB=64
NVMF_BENCH_UP=0

nvmf_bench_up() {
	[ "$NVMF_BENCH_UP" = 0 ] || return 0
	NVMF_RAM_MIB=$NVMF_BENCH_MIB
	case "$TOPO-$SROCE_HOST" in
	loopback-*)
		nvmf_target_up "$SROCE_IP"
		nvmf_connect_raw "$SROCE_IP" ;;
	link-0)
		nvmf_target_up "$SROCE_IP"
		sync_hosts "nvmf-$PROVIDER-target" ;;
	link-1)
		sync_hosts "nvmf-$PROVIDER-target"
		nvmf_connect_raw "$SROCE_PEER_IP" ;;
	esac
	[ "$TOPO" = loopback ] || sync_hosts "nvmf-$PROVIDER-connected"
	NVMF_BENCH_UP=1
}

nvmf_bench_down() {
	[ "$NVMF_BENCH_UP" = 1 ] || return 0
	[ "$TOPO-$SROCE_HOST" = link-0 ] || nvmf_disconnect
	[ "$TOPO" = loopback ] || sync_hosts "nvmf-$PROVIDER-disconnected"
	[ "$TOPO-$SROCE_HOST" = link-1 ] || nvmf_target_down
	nvmf_unload
	NVMF_BENCH_UP=0
}

# fio_result JSON: the read figures of fio's JSON report as key=value pairs
# (iops, bw in MiB/s, bw_kib, clat in usec), or nothing if no I/O completed.
fio_result() {
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
    c, pct = r["clat_ns"], r["clat_ns"].get("percentile", {})
    if r["total_ios"] > 0 and not r.get("short_ios"):
        print(f"iops={r['iops']:.0f} bw={r['bw'] / 1024:.1f} bw_kib={r['bw']} "
              f"lat_min={c['min'] / 1e3:.2f} lat_avg={c['mean'] / 1e3:.2f} "
              f"lat_p99={pct['99.000000'] / 1e3:.2f} lat_max={c['max'] / 1e3:.2f}")
except (OSError, ValueError, KeyError, IndexError):
    pass
PY
}

# point_nvmf REP NAME SIZE TIMEOUT nvmf FIO-OPTIONS...
point_nvmf() {
	local rep=$1 point=$2/$3 limit=$4 side=guest out before after t0 rc=0 res

	shift 5
	out=$OUT/$PROVIDER-$rep-${point//\//-}
	[ "$TOPO" = link ] && { side=client; [ "$SROCE_HOST" = 0 ] && side=server; }
	nvmf_bench_up
	before=$(cpu_sample); t0=$(date +%s.%N)
	if [ "$side" = server ]; then
		exchange finished $((limit + 60))
		report "$rep" "$point" server ok "$(cpu_usage "$before" "$(cpu_sample)") secs=$(elapsed "$t0")"
		return
	fi
	if over_budget; then
		report "$rep" "$point" "$side" skip why=time-budget
	else
		timeout "$limit" fio --filename="$NVMF_NS" --name=bench --direct=1 --ioengine=libaio \
			--time_based --eta=never --output-format=json --output="$out.json" "$@" \
			> "$out.err" 2>&1 || rc=$?
		after=$(cpu_sample)
		res=$(fio_result "$out.json")
		if [ "$rc" = 0 ] && [ -n "$res" ]; then
			report "$rep" "$point" "$side" ok "$res $(cpu_usage "$before" "$after") secs=$(elapsed "$t0")"
		else
			report "$rep" "$point" "$side" fail "$(why_failed "$rc" "$out.err")"
			show_failure "$out.err"
		fi
	fi
	[ "$TOPO" = loopback ] || exchange finished $((limit + 60))
}

# --- providers ------------------------------------------------------------------------

provider_up() {
	PROVIDER=$1
	[ "$1" = sroce ] && export RDMAV_DRIVERS=$PROVIDER_PATH
	rdma_setup "$1"
	log "provider $1: $RDMA_DEV, GID index $GID_INDEX, eth0 MTU $(cat /sys/class/net/eth0/mtu), active_mtu $(devinfo_field "$RDMA_DEV" active_mtu)"
}

# Unload whatever provider is up (retry: the last process may still be
# releasing its device).
provider_down() {
	local mod dev try

	case "$PROVIDER" in sroce) mod=sroce dev=sroce0 ;; *) mod=rdma_rxe dev=rxe0 ;; esac
	nvmf_bench_down
	rdma link delete "$dev" 2>/dev/null || true
	for ((try = 0; try < 20; try++)); do
		rmmod "$mod" 2>/dev/null && return 0
		sleep 0.5
	done
	# Who still holds the device (a perftest stuck in the kernel shows here).
	ps -eo pid,stat,wchan:32,args | grep -E 'STAT|ib_' || true
	fail "cannot unload $mod after the $PROVIDER pass"
}

# pass REP PROVIDER: the whole matrix on one provider.
pass() {
	local rep=$1 name size limit cmd

	[ "$TOPO" = link ] && sync_hosts "rep$rep-$2-start"
	provider_up "$2"
	[ "$TOPO" = link ] && sync_hosts "rep$rep-$2-ready"
	matrix > "$OUT/matrix"	# (no /dev/fd in the guest for <(...))
	while read -r name size limit cmd; do
		# shellcheck disable=SC2086
		case "$cmd" in
		nvmf\ *) point_nvmf "$rep" "$name" "$size" "$limit" $cmd < /dev/null ;;
		*) "point_$TOPO" "$rep" "$name" "$size" "$limit" $cmd < /dev/null ;;
		esac
	done < "$OUT/matrix"
	provider_down
}

# providers_for REP: PROVIDERS, reversed on even repeats, so that neither
# always runs first (nor always last when the time budget runs out).
providers_for() {
	if [ $(($1 % 2)) = 1 ]; then echo "$PROVIDERS"; else echo "$PROVIDERS" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }'; fi
}

memcpy_bandwidth() {
	local size trials=9

	[ -x "$MEMCPY_BW" ] || fail "$MEMCPY_BW not built"
	[ "$QUICK" = 1 ] && trials=3
	for size in 1048576 67108864; do
		echo "BENCH-MEMCPY host=$SROCE_HOST $("$MEMCPY_BW" "$size" "$trials")"
	done
}

main() {
	local rep provider

	parse_args "$@"
	mkdir -p "$OUT"
	# fail() inside exchange() writes into $OUT/exchange: show it on the
	# console (fd 3), where the trap's own stdout may still be that file.
	exec 3>&1
	trap 'grep -h "FAIL" "$OUT/exchange" >&3 2>/dev/null || true' EXIT
	dmesg -n 1	# keep kernel chatter off the console the host parses
	log "matrix: $(matrix | awk '{ printf "%s/%s ", $1, $2 }')"
	echo "BENCH-GUEST host=$SROCE_HOST kernel=$(uname -r) vcpus=$(nproc) mem_kib=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
	if [ -n "$MTU" ]; then
		run ip link set eth0 mtu "$MTU" || fail "cannot set eth0 MTU $MTU"
	fi
	[ "$TOPO" = link ] && wait_peer 30
	[ -n "$MTU" ] && link_carries "$MTU"
	memcpy_bandwidth
	for ((rep = 1; rep <= REPS; rep++)); do
		for provider in $(providers_for "$rep"); do
			pass "$rep" "$provider"
		done
	done
	memcpy_bandwidth
	log "bench done in $((SECONDS - START)) s"
}

main "$@"
