# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the RC data-path scripts (tests/vm/tests/*.sh and the cases of
# tests/vm/matrix.tsv), sourced after tests/vm/lib.sh inside the guest:
#   . "$SROCE_TOP/tests/vm/lib.sh"
#   . "$SROCE_TOP/tests/vm/lib-rdma.bash"
#   rdma_setup "$@"
#
# Named .bash, not .sh, so that run-suite.sh never takes it for a test.
#
# Provider: sroce (default: sroce0 on eth0 through $RDMAV_DRIVERS) or rxe
# (rxe0 on eth0 through the system's librxe), chosen by the script's first
# argument or $SROCE_TEST_PROVIDER:
#   tests/vm/vm-run tests/vm/matrix.bash loopback-send-bw rxe
# rxe runs the same scripts against a working RDMA device: it proves the
# scripts themselves while the sroce data path is being written.
#
# After rdma_setup: RDMA_DEV (device name), GID_INDEX (its IPv4 RoCE v2 GID).

VERBS_TEST=$SROCE_TOP/build/verbs/sroce_verbs_test
VERBS_SKIP=()		# --skip options for the program, per provider
# What rdma_rxe gets wrong (tests/verbs/README.md): skipped against rxe so
# that a pass there means the scripts and the program work.
# Memory windows (rxe on 6.1.0-57, loopback-verbs.sh rxe --only 'mw*'):
# rxe leaves IBV_WC_WITH_INV out of a receive that invalidated a window
# (mw2_remote_inv); completes a failed LOCAL_INV with LOC_QP_OP_ERR, where
# sroce gives MW_BIND_ERR as for its fast-reg MRs (mw2_rebind,
# mw_err_type1_local_inv); binds over an MR of another PD
# (mw_err_mr_other_pd) and takes IBV_WR_BIND_MW of a type 1 window
# (mw_err_type1_post); lets a WRITE run past the end of a window
# (mw_err_outside); refuses a zero-length type 2 bind (mw_err_zero_length);
# accepts SEND_WITH_INV naming a type 1 window (mw_err_type1_send_inv).
RXE_DEVIATIONS="err_bad_lkey flush_posted_in_err bad_modify_value bad_modify_cur_state post_send_before_rts err_ord_zero_read err_ord_zero_atomic err_read_psn_span mw2_remote_inv mw2_rebind mw_err_type1_local_inv mw_err_mr_other_pd mw_err_type1_post mw_err_outside mw_err_zero_length mw_err_type1_send_inv"
# What rdma_rxe/librxe cannot do, on either end of a case: librxe refuses
# ibv_rereg_mr (EOPNOTSUPP: rereg_*, err_recv_foreign_pd, mw_err_dereg_busy,
# which expects EBUSY from it); after SQD -> RTS
# rxe leaves the sends posted in SQD waiting; ex_api's first WR completes
# flushed on rxe (not investigated);
# rxe keeps en_sqd_async_notify for later SQD entries (sqd_notify_once),
# sqd_rnr resends in SQD (untried on rxe);
# tx_idle_before_rts reads sroce's transmit thread;
# sqd_ird_resize: rxe reallocates its responder resources on that modify
# (from its source; not run against rxe); sqd_ird_refused relies on a false
# cur_qp_state being refused, which rxe does not (bad_modify_cur_state);
# sqd_unsignaled_tail goes SQD -> RTS and posts again, as sqd does;
# err_recv_too_small: rxe as responder NAKs the overflowing SEND with a
# remote operational error, where the case expects invalid request;
# bad_modify_flow_label: rxe (6.1) takes a 21-bit flow label at RTR;
# srq_pd: rxe checks the lkeys of an SRQ's receive WQEs against the QP's PD
# (rxe_resp.c copy_data(qp->pd, ...), from its source; not run against rxe).
RXE_LACKS="ex_api rereg_access rereg_pd rereg_translation err_recv_foreign_pd mw_err_dereg_busy sqd sqd_notify_once sqd_rnr sqd_ird_resize sqd_ird_refused sqd_unsignaled_tail tx_idle_before_rts err_recv_too_small bad_modify_flow_label srq_pd"
PERF_PORT=18600		# each run takes the next port: no TIME_WAIT clashes
CMD_TIMEOUT=${CMD_TIMEOUT:-240}

# --- device -----------------------------------------------------------------

rxe_setup() {
	run modprobe crc32_generic || true	# else "rdma link add" fails with ENOENT
	run modprobe rdma_rxe || skip "no rdma_rxe module"
	run rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0 failed"
	wait_for 5 ibdev_exists rxe0 || fail "rxe0 did not appear"
	unset RDMAV_DRIVERS	# librxe from the system, not our provider
	RDMA_DEV=rxe0
	local c

	for c in $RXE_DEVIATIONS; do
		VERBS_SKIP+=(--skip "$c")
	done
	log "rxe: sroce_verbs_test will skip rxe's known deviations: $RXE_DEVIATIONS"
	skip_rxe_lacks
}

# skip_rxe_lacks: leave out the cases rxe cannot run (RXE_LACKS), whichever
# end it is on.
skip_rxe_lacks() {
	local c

	for c in $RXE_LACKS; do
		VERBS_SKIP+=(--skip "$c")
	done
	log "sroce_verbs_test will skip what rxe lacks: $RXE_LACKS"
}

# gid_index DEV ADDR: index of DEV's RoCE v2 GID ::ffff:ADDR, from ibv_devinfo.
gid_index() {
	gid_index_of "$1" "::ffff:$2"
}

# gid_index_of DEV GID: the index of GID (as ibv_devinfo prints it), RoCE v2.
gid_index_of() {
	ibv_devinfo -v -d "$1" 2>/dev/null |
		sed -n "s/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*$2, RoCE v2\$/\1/p" |
		head -n 1
}

# rdma_use_ipv6_gid: give eth0 the ULA fd00:198:18::<host + 1> and make its
# RoCE v2 GID the one later runs use (GID_INDEX).
rdma_use_ipv6_gid() {
	local ip=fd00:198:18::$((${SROCE_HOST:-0} + 1))

	run ip -6 addr add "$ip/64" dev eth0 nodad
	expect_gid "$RDMA_DEV" "$ip" "RoCE v2" 10
	GID_INDEX=$(gid_index_of "$RDMA_DEV" "$ip")
	[ -n "$GID_INDEX" ] || fail "no GID index for $ip"
	log "IPv6 RoCE v2 GID $ip, index $GID_INDEX"
}

# wait_peer_ipv6 [SEC]: the peer's ULA (rdma_use_ipv6_gid there) answers.
wait_peer_ipv6() {
	local ip=fd00:198:18::$((2 - SROCE_HOST))

	wait_for "${1:-30}" busybox ping -6 -c 1 -W 1 "$ip" >/dev/null ||
		fail "peer $ip unreachable"
}

# rdma_setup [sroce|rxe]: create the device, find the GID index.
rdma_setup() {
	local provider=${1:-${SROCE_TEST_PROVIDER:-sroce}}

	case "$provider" in
	sroce)
		require_provider
		sroce_load
		sroce_add sroce0 eth0
		RDMA_DEV=sroce0
		;;
	rxe) rxe_setup ;;
	*) fail "unknown provider '$provider' (sroce or rxe)" ;;
	esac
	expect_gid "$RDMA_DEV" "::ffff:$SROCE_IP" "RoCE v2" 10
	GID_INDEX=$(gid_index "$RDMA_DEV" "$SROCE_IP")
	[ -n "$GID_INDEX" ] || fail "no GID index for ::ffff:$SROCE_IP"
	log "provider $provider: device $RDMA_DEV, IPv4 RoCE v2 GID index $GID_INDEX"
}

# rdma_teardown: delete the device rdma_setup made and unload its driver.
rdma_teardown() {
	case "$RDMA_DEV" in
	sroce0) run rdma link delete sroce0; run rmmod sroce ;;
	rxe0) run rdma link delete rxe0; run rmmod rdma_rxe ;;
	esac
	VERBS_SKIP=()
}

# rdma_pkts: packets RDMA_DEV sent and received so far.
rdma_pkts() {
	local hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters

	echo $(($(cat "$hw/sent_pkts") + $(cat "$hw/rcvd_pkts")))
}

# delete_and_unload_sroce: after a fuzz, "rdma link delete sroce0" and
# "rmmod sroce" must both succeed: a reference left behind makes one refuse
# or hang. If the delete is refused, unload anyway (it unregisters the device
# too) so the log says whether references were left, then fail.
delete_and_unload_sroce() {
	local delete_rc=0

	log "+ rdma link delete sroce0"
	timeout 30 rdma link delete sroce0 || delete_rc=$?
	[ "$delete_rc" != 0 ] || wait_for 5 eval '! ibdev_exists sroce0' ||
		fail "sroce0 still present after delete"
	log "+ rmmod sroce"
	timeout 30 rmmod sroce || fail "rmmod sroce failed or hung (references left?)"
	! sroce_loaded || fail "sroce still loaded after rmmod"
	[ "$delete_rc" = 0 ] ||
		fail "rdma link delete sroce0 failed (status $delete_rc); rmmod then succeeded"
	log "sroce0 deleted and sroce unloaded"
}

# interop_both_directions FUNC [PEERS]: two hosts, one on sroce and one on
# rxe, then swapped; FUNC runs in each (argument: direction1 or direction2).
# Host 0 serves: first sroce serves and rxe requests, then the other way
# round. PEERS "rxe" (by hand: vm-run --hosts 2 SCRIPT rxe) puts rxe on both
# hosts in both directions, to prove a script against a known-good pair.
interop_both_directions() {
	local provider_path=$RDMAV_DRIVERS	# rxe_setup unsets it
	local first=rxe second=sroce

	[ "$SROCE_HOST" = 0 ] && { first=sroce; second=rxe; }
	case "${2:-}" in
	'' | sroce) ;;
	rxe) first=rxe second=rxe ;;
	*) fail "interop_both_directions: unknown peers '$2' (rxe, or none)" ;;
	esac
	rdma_setup "$first"
	[ "$first" = rxe ] || skip_rxe_lacks	# the peer is rxe
	wait_peer 30
	"$1" direction1
	rdma_teardown
	barrier swap
	export RDMAV_DRIVERS=$provider_path
	rdma_setup "$second"
	[ "$second" = rxe ] || skip_rxe_lacks
	"$1" direction2
}

# tx_thread_sleeps: how often sroce's transmit thread on eth0 went to sleep
# (its voluntary context switches: each wake-up ends in one).
tx_thread_sleeps() {
	local pid

	pid=$(pgrep -x "sroce-tx/eth0") || fail "no sroce-tx/eth0 thread"
	awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$pid/status"
}

# count_tx_wakeups CMD...: run CMD; TX_SLEEPS and DOORBELLS are then how
# often the transmit thread slept and how many doorbells rang meanwhile.
count_tx_wakeups() {
	local hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters sleeps0 doorbells0

	sleeps0=$(tx_thread_sleeps)
	doorbells0=$(cat "$hw/doorbells")
	"$@"
	sleep 0.05 # ib_core caches hw_counters for 10 ms
	TX_SLEEPS=$(($(tx_thread_sleeps) - sleeps0))
	DOORBELLS=$(($(cat "$hw/doorbells") - doorbells0))
}

# --- processes ----------------------------------------------------------------

# LISTEN_NS: the network namespace start_server looks for its listener in
# (unset: this one).
tcp_listening() { ${LISTEN_NS:+ip netns exec "$LISTEN_NS"} ss -Hltn "sport = :$1" | grep -q .; }

# cm_listening PORT: an rdma_cm listener on PORT, whatever its address
# (rdma_cm servers, perftest -R: no TCP socket; restrack lists the listener
# as "state LISTEN ... src-addr 0.0.0.0:PORT" once it is bound to a device).
cm_listening() {
	${LISTEN_NS:+ip netns exec "$LISTEN_NS"} rdma res show cm_id 2>/dev/null |
		grep ' state LISTEN ' | grep -qE "src-addr [^ ]*:$1( |\$)"
}

listening() { tcp_listening "$1" || cm_listening "$1"; }

next_port() { PERF_PORT=$((PERF_PORT + 1)); }

# start_server OUT PORT CMD...: CMD in the background with its output in OUT;
# returns once it listens on PORT (TCP or rdma_cm). Sets SERVER_PID.
start_server() {
	local out=$1 port=$2

	shift 2
	log "+ $* > $out &"
	timeout "$CMD_TIMEOUT" "$@" > "$out" 2>&1 &
	SERVER_PID=$! SERVER_OUT=$out
	if ! wait_for 30 listening "$port"; then
		cat "$out"
		fail "$1 did not listen on port $port"
	fi
}

# finish_server OUT: wait for the server; fail with its output if it failed.
finish_server() {
	local rc=0

	wait "$SERVER_PID" || rc=$?
	SERVER_PID=
	[ "$rc" = 0 ] || { cat "$1"; log_hw_counters; fail "server exited with status $rc"; }
}

# stop_server: end the server start_server left running (a client failed:
# the test ends at once, not at the server's timeout) and show its output.
stop_server() {
	[ -n "${SERVER_PID:-}" ] || return 0
	kill "$SERVER_PID" 2>/dev/null || true
	wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=
	log "server's output ($SERVER_OUT):"
	cat "$SERVER_OUT"
}

# log_hw_counters: the port's non-zero hw counters in one log line, for a
# failure's post-mortem: the failed QP is gone by then, the port's counters
# (retransmissions, NAKs, timeouts) stay.
log_hw_counters() {
	local hw=/sys/class/infiniband/${RDMA_DEV:-none}/ports/1/hw_counters f v line=''

	[ -d "$hw" ] || return 0
	sleep 0.05 # ib_core caches hw_counters for 10 ms
	for f in "$hw"/*; do
		v=$(cat "$f")
		[ "$v" = 0 ] || line+=" ${f##*/}=$v"
	done
	log "hw_counters of $RDMA_DEV:$line"
}

# run_client OUT CMD...: CMD in the foreground, output in OUT (and the log).
run_client() {
	local out=$1 rc=0

	shift
	log "+ $*"
	timeout "$CMD_TIMEOUT" "$@" > "$out" 2>&1 || rc=$?
	cat "$out"
	[ "$rc" = 0 ] || { stop_server; log_hw_counters; fail "'$*' exited with status $rc"; }
}

# --- output checks --------------------------------------------------------------

# perf_rows OUT: the data rows of a perftest results table ("#bytes ..." header).
# perftest's warning that its clock calibration is noisy (common under TCG) goes
# to stderr, which shares the file, and can land in the middle of a row.
perf_rows() {
	sed 's/Correlation coefficient r^2: [0-9.]* < [0-9.]*//' "$1" |
		awk '/#bytes/ { table = 1; next } table && $1 ~ /^[0-9]+$/ && NF >= 4'
}

# perftest calibrates its cycle counter against gettimeofday() at start; when
# the fit is poor (r^2 < 0.9: the TCG vCPU stalled meanwhile) it prints that
# warning, takes 0 MHz and every figure of the run comes out inf or 0. The
# transfers completed all the same; only their timing is unknown.
perf_clock_unknown() { grep -q 'Correlation coefficient r^2' "$1"; }

# check_perf OUT KIND SIZE...: the table has a row for each SIZE whose fields
# are all numbers, with a non-zero message rate (bw: column 5; the MB/sec
# of 2-byte messages rounds to 0.00 on a slow device) or average (lat: t_avg).
# Without a clock (above) only the size and iteration columns are judged.
check_perf() {
	local out=$1 kind=$2 size row

	shift 2
	grep -q '#bytes' "$out" || fail "no results table in $out"
	for size in "$@"; do
		row=$(perf_rows "$out" | awk -v s="$size" '$1 == s' | head -n 1)
		[ -n "$row" ] || fail "no result row for $size bytes in $out"
		if perf_clock_unknown "$out"; then
			echo "$row" | awk '{ exit !($2 ~ /^[0-9]+$/ && $2 > 0) }' ||
				fail "no iteration count in result row: $row"
			continue
		fi
		# A lat row's t_stdev (column 7) is "-nan" when a few samples are equal.
		echo "$row" | awk -v kind="$kind" '{ for (i = 1; i <= NF; i++)
			if ($i !~ /^[0-9.]+$/ && !(kind == "lat" && i == 7 && $i ~ /^-?nan$/)) exit 1 }' ||
			fail "non-numeric result row: $row"
		case "$kind" in
		# Either figure can print as zero on its own: 2-byte messages round to
		# 0.00 MB/s, 8 MiB ones to 0.000000 Mpps on a slow guest.
		bw) echo "$row" | awk '{ exit !($4 > 0 || $5 > 0) }' ||
			fail "zero bandwidth and message rate: $row" ;;
		lat) echo "$row" | awk '{ exit !($6 > 0) }' || fail "zero latency: $row" ;;
		esac
	done
	if perf_clock_unknown "$out"; then
		log "$out: perftest could not calibrate its clock (figures inf or 0); rows present for $* bytes"
	fi
	log "$out: results for $* bytes"
}

# All sizes -a runs: 2 .. 8 MiB.
all_sizes() {
	local s=2

	while [ $s -le 8388608 ]; do
		echo $s
		s=$((s * 2))
	done
}

# check_pingpong OUT ITERS: ibv_*_pingpong's two summary lines, and no
# "invalid data in page N": with -c, rdma-core 44's pingpongs print that
# line (server side, on stdout) for each page whose first byte is wrong,
# then their summary as usual, and still exit 0.
check_pingpong() {
	local bad

	bad=$(grep -m 3 -E 'invalid data in page [0-9]+' "$1" | tr '\n' ' ') || true
	[ -z "$bad" ] || fail "data mismatch in $1: $bad"
	grep -qE "^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec" "$1" ||
		fail "no bandwidth line in $1"
	grep -qE "^$2 iters in [0-9.]+ seconds = [0-9.]+ usec/iter" "$1" ||
		fail "no '$2 iters' line in $1"
}

# --- the tools, one device ---------------------------------------------------------

# perftest_loopback TOOL KIND ARGS...: server and client of TOOL on RDMA_DEV,
# TCP exchange over 127.0.0.1. ARGS: "-s N" or "-a" plus "-n N". Checks the
# client's table for the sizes of ARGS (atomics: 8 bytes). With -R (rdma_cm)
# the client names eth0's address: rdma_cm finds no RDMA device behind lo.
perftest_loopback() {
	local tool=$1 kind=$2 tag server=127.0.0.1

	shift 2
	if perf_uses_rdma_cm "$@"; then server=$SROCE_IP; fi
	next_port
	tag=$tool-$PERF_PORT
	start_server "$tag.server" "$PERF_PORT" "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F \
		-p "$PERF_PORT" "$@"
	cm_connect_hold "$@"
	run_client "$tag.client" "${CM_HOLD[@]}" "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F \
		-p "$PERF_PORT" "$@" "$server"
	finish_server "$tag.server"
	# shellcheck disable=SC2046
	check_perf "$tag.client" "$kind" $(perf_sizes "$tool" "$@")
}

# perf_uses_rdma_cm ARGS...: a perftest run with ARGS connects through rdma_cm (-R).
perf_uses_rdma_cm() {
	case " $* " in *" -R "*) return 0 ;; esac
	return 1
}

# cm_connect_hold ARGS...: CM_HOLD, the words that run a perftest client
# with ARGS: with -R its second rdma_connect() is held a second, as perftest
# 4.5's -R client can outrun its server's second listen and then crashes in
# its retry (tests/verbs/cm_connect_delay.c). Empty for other clients.
CM_CONNECT_DELAY_SO=$SROCE_TOP/build/verbs/sroce_cm_connect_delay.so
cm_connect_hold() {
	CM_HOLD=()
	perf_uses_rdma_cm "$@" || return 0
	[ -e "$CM_CONNECT_DELAY_SO" ] ||
		fail "$CM_CONNECT_DELAY_SO not built (make -C tests/verbs O=\$PWD/build/verbs)"
	CM_HOLD=(env "LD_PRELOAD=$CM_CONNECT_DELAY_SO")
}

# perf_sizes TOOL ARGS...: the message sizes a run with ARGS reports.
perf_sizes() {
	local tool=$1

	shift
	case "$tool" in *atomic*) echo 8; return ;; esac
	while [ $# -gt 0 ]; do
		case "$1" in
		-a) all_sizes; return ;;
		-s) echo "$2"; return ;;
		esac
		shift
	done
	case "$tool" in *_bw) echo 65536 ;; *) echo 2 ;; esac
}

# pingpong_loopback SIZE ITERS [OPTS...]: ibv_rc_pingpong with -c (check data).
# ack_timeout_floor N: sroce's test-only floor under every QP's local ACK
# timeout exponent (module parameter min_ack_timeout; 0: off), for tools that
# cannot set their QPs' timeout. ibv_rc_pingpong's is a fixed 14 (67 ms x 7
# retries), which a TCG guest stalled 1-2 s on a loaded host outlasts; the
# floor is PERF_QP_TIMEOUT, what every perftest run here gets with -u.
# Nothing to do without sroce (rxe runs).
ack_timeout_floor() {
	local p=/sys/module/sroce/parameters/min_ack_timeout

	[ -w "$p" ] || return 0
	echo "$1" > "$p"
}

# tool_pingpong_loopback TOOL SIZE ITERS [OPTS...]: TOOL, an ibv_*_pingpong
# with sroce's ACK-timeout floor, -c (check data), server and client on
# RDMA_DEV; both must print their summary lines.
tool_pingpong_loopback() {
	local tool=$1 size=$2 iters=$3 tag

	shift 3
	ack_timeout_floor "$PERF_QP_TIMEOUT"
	next_port
	tag=${tool#ibv_}-$size-$PERF_PORT
	start_server "$tag.server" "$PERF_PORT" "$tool" -d "$RDMA_DEV" -g "$GID_INDEX" \
		-p "$PERF_PORT" -s "$size" -n "$iters" -c "$@"
	run_client "$tag.client" "$tool" -d "$RDMA_DEV" -g "$GID_INDEX" \
		-p "$PERF_PORT" -s "$size" -n "$iters" -c "$@" 127.0.0.1
	finish_server "$tag.server"
	cat "$tag.server"
	check_pingpong "$tag.client" "$iters"
	check_pingpong "$tag.server" "$iters"
	ack_timeout_floor 0
}

# PINGPONG_TOOL: the ibv_*_pingpong of pingpong_loopback and pingpong_two_hosts
# (ibv_uc_pingpong: the same exchange over UC QPs).
PINGPONG_TOOL=ibv_rc_pingpong

pingpong_loopback() {
	tool_pingpong_loopback "$PINGPONG_TOOL" "$@"
}

# ud_pingpong_loopback SIZE ITERS: ibv_ud_pingpong -c, server and client on
# RDMA_DEV (SIZE at most the port's active MTU).
ud_pingpong_loopback() {
	local size=$1 iters=$2 tag

	next_port
	tag=ud-pingpong-$size-$PERF_PORT
	start_server "$tag.server" "$PERF_PORT" ibv_ud_pingpong -d "$RDMA_DEV" \
		-g "$GID_INDEX" -p "$PERF_PORT" -s "$size" -n "$iters" -c
	run_client "$tag.client" ibv_ud_pingpong -d "$RDMA_DEV" -g "$GID_INDEX" \
		-p "$PERF_PORT" -s "$size" -n "$iters" -c 127.0.0.1
	finish_server "$tag.server"
	cat "$tag.server"
	check_pingpong "$tag.client" "$iters"
	check_pingpong "$tag.server" "$iters"
}

# srq_pingpong_loopback SIZE ITERS [OPTS...]: ibv_srq_pingpong, whose QPs (16
# by default, -q) all receive through one SRQ on each side.
srq_pingpong_loopback() {
	tool_pingpong_loopback ibv_srq_pingpong "$@"
}

# --- the tools, two hosts -------------------------------------------------------------
# Host 0 runs the server, host 1 the client against 198.18.0.1 (vm-run's
# addresses). Both hosts call the same helpers in the same order.

# two_hosts SERVER_CHECK CLIENT_CHECK CMD...: CMD as server on host 0 and as
# client of it on host 1; each host then runs its check (a command taking
# the output file).
two_hosts() {
	local server_check=$1 client_check=$2 tag

	shift 2
	next_port
	tag=$(basename "$1")-$PERF_PORT
	if [ "$SROCE_HOST" = 0 ]; then
		start_server "$tag.server" "$PERF_PORT" "$@" -p "$PERF_PORT"
		barrier "$tag-listening" 60
		finish_server "$tag.server"
		cat "$tag.server"
		$server_check "$tag.server"
	else
		barrier "$tag-listening" 60
		cm_connect_hold "$@"
		run_client "$tag.client" "${CM_HOLD[@]}" "$@" -p "$PERF_PORT" "$SROCE_PEER_IP"
		$client_check "$tag.client"
	fi
	barrier "$tag-done" "$CMD_TIMEOUT"
}

no_check() { :; }

# perftest_two_hosts TOOL KIND ARGS...: like perftest_loopback across the link.
perftest_two_hosts() {
	local tool=$1 kind=$2 sizes

	shift 2
	sizes=$(perf_sizes "$tool" "$@")
	# shellcheck disable=SC2086
	PERF_CHECK() { check_perf "$1" "$kind" $sizes; }
	two_hosts no_check PERF_CHECK "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F "$@"
}

pingpong_two_hosts() {
	local size=$1 iters=$2

	shift 2
	PP_CHECK() { check_pingpong "$1" "$iters"; }
	ack_timeout_floor "$PERF_QP_TIMEOUT"
	two_hosts PP_CHECK PP_CHECK "$PINGPONG_TOOL" -d "$RDMA_DEV" -g "$GID_INDEX" \
		-s "$size" -n "$iters" -c "$@"
	ack_timeout_floor 0
}

# --- rdma_cm ---------------------------------------------------------------------------
# rdmacm-utils' rping, ucmatose, udaddy and rdma_server/rdma_client (and
# perftest -R) connect through rdma_cm, which sends ib_cm's MADs through the
# device's GSI QP (QP1). Their servers listen on an rdma_cm port, not a TCP
# one (cm_listening). A client names an address of eth0 even on one host:
# behind lo rdma_cm finds no RDMA device ("rdma_resolve_route: No such
# device" for 127.0.0.1). Host 0 serves on one host and across the link
# alike, so a client connects to host 0's address. WHERE: loopback or
# two_hosts, as above; both hosts call the same helpers in the same order.

# One run of a tool; then both sides are killed. The tools wait for every
# message: a lost datagram (udaddy) or connection hangs them.
CM_TIMEOUT=90
UDADDY_PORT=7174	# udaddy's -p is its port space: it always uses this port
CM_MSGS="req rep rtu sidr_req sidr_rep"
declare -A CM_SENT_AT_MARK=()

# rdma_cm_setup: load rdma_ucm (librdmacm's /dev/infiniband/rdma_cm:
# nothing in the guest loads it on demand) and check that ib_mad made the
# device's GSI QP, without which ib_cm has no port to connect through.
rdma_cm_setup() {
	run modprobe rdma_ucm || fail "modprobe rdma_ucm failed"
	gsi_qp_exists "$RDMA_DEV" || fail "$RDMA_DEV has no GSI QP1: $(dmesg | grep -m 1 -o "$RDMA_DEV: Couldn't .*" || echo 'ib_mad said nothing')"
}

# gsi_qp_exists DEV: ib_mad has DEV's GSI QP (QP1) on port 1.
gsi_qp_exists() {
	rdma res show qp link "$1/1" 2>/dev/null | grep -q ' lqpn 1 type GSI '
}

# cm_server_ip: host 0's IPv4 address, where the servers listen.
cm_server_ip() {
	if [ "$SROCE_HOST" = 0 ]; then echo "$SROCE_IP"; else echo "$SROCE_PEER_IP"; fi
}

# cm_plays WHERE ROLE: this host runs the server or the client (ROLE): on
# one host both, across the link host 0 the server and host 1 the client.
cm_plays() {
	[ "$1" = loopback ] && return 0
	case "$2" in
	server) [ "$SROCE_HOST" = 0 ] ;;
	client) [ "$SROCE_HOST" = 1 ] ;;
	*) fail "cm_plays: no role '$2'" ;;
	esac
}

# cm_sent MSG: MADs of kind MSG (CM_MSGS) that ib_cm sent from RDMA_DEV's
# port 1, each once: cm_tx_msgs counts a retransmission (or a reply resent
# for a duplicate) again, cm_tx_retries counts just those.
cm_sent() {
	local dir=/sys/class/infiniband/$RDMA_DEV/ports/1

	echo $(($(cat "$dir/cm_tx_msgs/$1") - $(cat "$dir/cm_tx_retries/$1")))
}

# cm_mark: remember what ib_cm has sent so far (expect_cm_sent counts from
# here). Without ib_cm on the port there is nothing to remember: the tool
# runs all the same, so that its own error comes first.
cm_mark() {
	local m

	CM_SENT_AT_MARK=()
	cm_counters_exist || return 0
	for m in $CM_MSGS; do
		CM_SENT_AT_MARK[$m]=$(cm_sent "$m")
	done
}

cm_counters_exist() { [ -d "/sys/class/infiniband/$RDMA_DEV/ports/1/cm_tx_msgs" ]; }
cm_sent_since_mark() { echo $(($(cm_sent "$1") - ${CM_SENT_AT_MARK[$1]})); }
cm_sent_is() { [ "$(cm_sent_since_mark "$1")" = "$2" ]; }

# expect_cm_sent WHERE ROLE MSG N: the host playing ROLE sent N MSG since
# cm_mark (a host that does not play ROLE checks nothing). ib_cm counts a
# MAD when its send completes, which may follow the tool's exit: wait a little.
expect_cm_sent() {
	cm_plays "$1" "$2" || return 0
	[ ${#CM_SENT_AT_MARK[@]} != 0 ] ||
		fail "ib_cm has no counters for $RDMA_DEV port 1: it did not take the port"
	wait_for 5 cm_sent_is "$3" "$4" ||
		fail "ib_cm sent $(cm_sent_since_mark "$3") $3 from $RDMA_DEV for the $2, not $4"
	log "ib_cm sent $4 $3 from $RDMA_DEV for the $2"
}

# cm_pair WHERE PORT NAME SERVER_CHECK CLIENT_CHECK SERVER_CMD... -- CLIENT_CMD...:
# the server (rdma_cm listener on PORT) and its client, on one host or
# across the link; both must exit 0, then each check runs on its output.
# Line-buffered, so a tool killed at CM_TIMEOUT still shows how far it got.
cm_pair() {
	local where=$1 port=$2 tag=$3-$2 server_check=$4 client_check=$5 server=()
	local CMD_TIMEOUT=$CM_TIMEOUT	# start_server's and run_client's

	shift 5
	while [ "$1" != -- ]; do
		server+=("$1")
		shift
	done
	shift
	if cm_plays "$where" server; then
		start_server "$tag.server" "$port" stdbuf -oL "${server[@]}"
	fi
	[ "$where" = loopback ] || barrier "$tag-listening" 60
	if cm_plays "$where" client; then
		run_client "$tag.client" stdbuf -oL "$@"
		"$client_check" "$tag.client"
	fi
	if cm_plays "$where" server; then
		finish_server "$tag.server"
		cat "$tag.server"
		"$server_check" "$tag.server"
	fi
	[ "$where" = loopback ] || barrier "$tag-done" "$CM_TIMEOUT"
}

# expect_lines OUT COUNT REGEX: OUT has COUNT lines matching REGEX (grep -E).
expect_lines() {
	local got

	got=$(grep -cE "$3" "$1" || true)
	[ "$got" = "$2" ] || fail "$1: $got lines match '$3', expected $2"
}

# rping_pair WHERE ADDR COUNT [OPTS...]: rping, server bound to ADDR (host
# 0's), COUNT pings with -V: the client compares each ping's data that
# came back with what it sent and fails on a mismatch; -v prints every
# ping on both sides, which are counted. One connection: one REQ, REP, RTU.
rping_pair() {
	local where=$1 addr=$2 count=$3

	shift 3
	next_port
	RPING_COUNT=$count
	cm_mark
	cm_pair "$where" "$PERF_PORT" rping check_rping_server check_rping_client \
		rping -s -a "$addr" -p "$PERF_PORT" -C "$count" -V -v "$@" -- \
		rping -c -a "$addr" -p "$PERF_PORT" -C "$count" -V -v "$@"
	expect_cm_sent "$where" client req 1
	expect_cm_sent "$where" server rep 1
	expect_cm_sent "$where" client rtu 1
}

# Every ping numbered 0 .. COUNT-1 once, no "data mismatch".
check_rping_client() {
	local i

	! grep -q 'mismatch' "$1" || fail "rping client: $(grep -m 1 mismatch "$1")"
	for ((i = 0; i < RPING_COUNT; i++)); do
		expect_lines "$1" 1 "^ping data: rdma-ping-$i: "
	done
	log "rping client: $RPING_COUNT pings, data verified"
}

check_rping_server() {
	expect_lines "$1" "$RPING_COUNT" '^server ping data: rdma-ping-[0-9]+: '
	log "rping server: $RPING_COUNT pings"
}

# check_cmatest OUT: ucmatose's and udaddy's last lines on success (each
# returns only once every message of every connection has completed).
check_cmatest() {
	expect_lines "$1" 1 '^data transfers complete$'
	expect_lines "$1" 1 '^return status 0$'
}

# ucmatose_pair WHERE CONNS COUNT: ucmatose, CONNS RC connections to host 0,
# COUNT messages each way on each; CONNS REQs, REPs and RTUs.
ucmatose_pair() {
	local where=$1 conns=$2 count=$3 addr

	addr=$(cm_server_ip)
	next_port
	cm_mark
	cm_pair "$where" "$PERF_PORT" ucmatose check_cmatest check_cmatest \
		ucmatose -p "$PERF_PORT" -c "$conns" -C "$count" -- \
		ucmatose -s "$addr" -p "$PERF_PORT" -c "$conns" -C "$count"
	expect_cm_sent "$where" client req "$conns"
	expect_cm_sent "$where" server rep "$conns"
	expect_cm_sent "$where" client rtu "$conns"
}

# udaddy_pair WHERE CONNS COUNT: udaddy, CONNS UD "connections" (SIDR
# requests) to host 0, COUNT datagrams each way on each.
udaddy_pair() {
	local where=$1 conns=$2 count=$3 addr

	addr=$(cm_server_ip)
	cm_mark
	cm_pair "$where" "$UDADDY_PORT" udaddy check_cmatest check_cmatest \
		udaddy -c "$conns" -C "$count" -- \
		udaddy -s "$addr" -c "$conns" -C "$count"
	expect_cm_sent "$where" client sidr_req "$conns"
	expect_cm_sent "$where" server sidr_rep "$conns"
}

# mckey_two_hosts GROUP SENDS: multicast through rdma_cm across the link.
# Host 0 joins GROUP with mckey and waits for SENDS datagrams; host 1 joins
# as a sender SENDS times, one datagram each: mckey's sender posts
# unsignaled sends and destroys its QP at once, so a device that transmits
# after the post (rdma_rxe) gets only the first out. Both hosts call it.
mckey_two_hosts() {
	if [ "$SROCE_HOST" = 0 ]; then
		mckey_receive "$@"
	else
		mckey_send "$@"
	fi
	barrier mckey-finished "$CM_TIMEOUT"
}

mckey_receive() {
	local group=$1 sends=$2 out=mckey.receiver rc=0 pid

	log "+ mckey -m $group -b $SROCE_IP -C $sends > $out &"
	timeout "$CM_TIMEOUT" stdbuf -oL mckey -m "$group" -b "$SROCE_IP" -C "$sends" \
		> "$out" 2>&1 &
	pid=$!
	wait_for 30 grep -q '^mckey: joined ' "$out" || { cat "$out"; fail "mckey did not join $group"; }
	barrier mckey-joined
	wait "$pid" || rc=$?
	cat "$out"
	[ "$rc" = 0 ] || fail "mckey receiver exited with status $rc"
	# mckey exits 0 after a failed join too: its lines are the verdict.
	expect_lines "$out" 1 '^data transfers complete$'
	expect_lines "$out" 1 '^return status 0$'
	log "host 0 ($RDMA_DEV) received $sends datagrams sent to $group"
}

mckey_send() {
	local group=$1 sends=$2 i CMD_TIMEOUT=$CM_TIMEOUT	# run_client's

	barrier mckey-joined
	for ((i = 1; i <= sends; i++)); do
		run_client "mckey.sender$i" stdbuf -oL mckey -m "$group" -b "$SROCE_IP" -s -C 1
		expect_lines "mckey.sender$i" 1 '^mckey: joined '
		expect_lines "mckey.sender$i" 1 '^data transfers complete$'
	done
	log "host 1 ($RDMA_DEV) sent $sends datagrams to $group"
}

# rdma_server_pair WHERE: rdma_server and rdma_client (librdmacm's
# synchronous rdma_getaddrinfo / rdma_create_ep / rdma_connect API), one
# connection, one message each way.
check_rdma_server() { expect_lines "$1" 1 '^rdma_server: end 0$'; }
check_rdma_client() { expect_lines "$1" 1 '^rdma_client: end 0$'; }
rdma_server_pair() {
	local where=$1 addr

	addr=$(cm_server_ip)
	next_port
	cm_mark
	cm_pair "$where" "$PERF_PORT" rdma_server check_rdma_server check_rdma_client \
		rdma_server -p "$PERF_PORT" -- rdma_client -s "$addr" -p "$PERF_PORT"
	expect_cm_sent "$where" client req 1
	expect_cm_sent "$where" server rep 1
}

# --- kernel consumers' verbs ---------------------------------------------------

KVERBS_KMOD=$(dirname "${SROCE_KO:-.}")/kmod/sroce_kverbs_test.ko

# run_kverbs_cases: the test module's cases (tests/kmod/sroce_kverbs_test.c)
# against RDMA_DEV through GID_INDEX, one KTAP line each; every one ok.
run_kverbs_cases() {
	local ktap plan oks rc=0

	[ -f "$KVERBS_KMOD" ] || fail "$KVERBS_KMOD not built (make modules-all)"
	dmesg -c > /dev/null
	run insmod "$KVERBS_KMOD" dev="$RDMA_DEV" gid_index="$GID_INDEX" || rc=$?
	ktap=$(dmesg | sed -n 's/.*sroce_kverbs_test: //p')
	echo "$ktap"
	[ "$rc" = 0 ] || fail "insmod failed (status $rc): a case failed"
	run rmmod sroce_kverbs_test
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<< "$ktap")
	oks=$(grep -c '^ok ' <<< "$ktap" || true)
	[ -n "$plan" ] && [ "$plan" -gt 0 ] || fail "no KTAP plan line"
	! grep -q '^not ok ' <<< "$ktap" || fail "a case failed"
	[ "$oks" = "$plan" ] || fail "$oks of $plan cases reported ok"
	log "all $plan kernel-verbs cases ok (GID index $GID_INDEX)"
}

# --- the integrity program -----------------------------------------------------------

require_verbs_test() {
	[ -x "$VERBS_TEST" ] ||
		fail "$VERBS_TEST not built (make -C tests/verbs O=\$PWD/build/verbs)"
}

# check_verbs_output OUT: every case line is "ok", and the tally agrees.
check_verbs_output() {
	local failed

	failed=$(grep -c '^not ok ' "$1" || true)
	grep -qE '^[0-9]+ passed, 0 failed$' "$1" && [ "$failed" = 0 ] ||
		fail "sroce_verbs_test: $(grep -E '^[0-9]+ passed' "$1" || echo 'no tally'); $(grep '^not ok ' "$1" | head -n 5 | tr '\n' ';')"
	log "$(grep -E '^[0-9]+ passed' "$1")"
}

# verbs_two_hosts ARGS...: the program across the link, server on host 0,
# client on host 1 (both hosts call it), each on its own RDMA_DEV and
# GID_INDEX; both judge the verdicts. Each call takes the next TCP port.
VERBS_PORT=18700
verbs_two_hosts() {
	local tag

	VERBS_PORT=$((VERBS_PORT + 1))
	tag=verbs-$VERBS_PORT
	if [ "$SROCE_HOST" = 0 ]; then
		start_server "$tag.server" "$VERBS_PORT" "$VERBS_TEST" --server \
			-p "$VERBS_PORT" -d "$RDMA_DEV" -g "$GID_INDEX" "$@"
		barrier "$tag-listening"
		finish_server "$tag.server"
		cat "$tag.server"
		check_verbs_output "$tag.server"
	else
		barrier "$tag-listening"
		run_verbs "$tag.client" --client "$SROCE_PEER_IP" -p "$VERBS_PORT" \
			-d "$RDMA_DEV" -g "$GID_INDEX" "$@"
	fi
	barrier "$tag-done" "$CMD_TIMEOUT"
}

# run_verbs OUT ARGS...: the program with ARGS; passes only if it exits 0
# and every case it ran is "ok".
run_verbs() {
	local out=$1 rc=0

	shift
	log "+ $VERBS_TEST $* ${VERBS_SKIP[*]}"
	timeout "$CMD_TIMEOUT" "$VERBS_TEST" "$@" "${VERBS_SKIP[@]}" > "$out" 2>&1 || rc=$?
	cat "$out"
	check_verbs_output "$out"
	[ "$rc" = 0 ] || fail "sroce_verbs_test exited with status $rc"
}

# --- runs of a perftest tool -------------------------------------------------------
# Every size perftest's -a offers (2 B .. 8 MiB: one packet up to 8192 packets at
# path MTU 1024), PERF_ITERS iterations a size: each size crosses packet boundaries
# and fills the queues, and the whole matrix stays within a few minutes of TCG.
# The atomic tools have one size (8 B) and refuse -a: PERF_ATOMIC_ITERS of it.
#
# Local ACK timeout: perftest's default (14: 67 ms, 7 retries, so 0.54 s without
# an ACK fails the QP) is shorter than the 1-2 s a TCG guest's vCPU stalls on a
# loaded machine (the guests' "clocksource: Long readout interval" lines); the
# peer is alive, its ACK just late, and ib_send_lat failed with status 12 (retry
# exceeded) while every retransmission arrived as a duplicate. 18 (1.07 s a try,
# 8.6 s in all) rides out such stalls; lost packets are still NAKed at once.

PERF_ITERS=5
PERF_QP_TIMEOUT=18
PERF_ATOMIC_ITERS=200

# make check runs perftest's -a (every size, 2 B .. 8 MiB, in one run) only
# for the bandwidth tools on one device; elsewhere one run per size: one
# packet (2 B, and 1 KiB = the path MTU) and many (64 KiB), and the largest
# -a reaches (8 MiB) for the latency tools on one device and, across the
# link, only for the two ways a long message crosses it, WRITE requests and
# READ responses (ib_write_bw, ib_read_bw: 12-21 s a run under TCG; SEND
# moves it the same way). make check-full (SROCE_VM_FULL=1) runs all of -a
# everywhere. Each size of -a costs ~1.2 s of perftest's own per-size work
# under TCG, on top of moving the data, and the link is the slowest part of
# the suite.
PERF_CHECK_SIZES="2 1024 65536"
PERF_LARGEST=8388608

# perf_check_sizes WHERE TOOL: the sizes make check runs TOOL with at WHERE,
# one run each; none for -a.
perf_check_sizes() {
	case "$1:$2" in
	loopback:*_bw) ;;
	loopback:* | two_hosts:ib_write_bw | two_hosts:ib_read_bw) echo "$PERF_CHECK_SIZES $PERF_LARGEST" ;;
	*) echo "$PERF_CHECK_SIZES" ;;
	esac
}

# perftest_all_sizes WHERE TOOL: WHERE is loopback or two_hosts; the result kind
# (bw or lat) is the tool's suffix. -a in make check-full, else the sizes of
# perf_check_sizes (-a if none).
perftest_all_sizes() {
	local where=$1 tool=$2 sizes size

	case "$tool" in
	*atomic*)
		"perftest_$where" "$tool" "${tool##*_}" -n "$PERF_ATOMIC_ITERS" -u "$PERF_QP_TIMEOUT" ;;
	*)
		sizes=$(perf_check_sizes "$where" "$tool")
		if [ -z "$sizes" ] || [ "${SROCE_VM_FULL:-0}" = 1 ]; then
			"perftest_$where" "$tool" "${tool##*_}" -a -n "$PERF_ITERS" -u "$PERF_QP_TIMEOUT"
			return
		fi
		for size in $sizes; do
			"perftest_$where" "$tool" "${tool##*_}" -s "$size" -n "$PERF_ITERS" -u "$PERF_QP_TIMEOUT"
		done ;;
	esac
}

# Sizes for ibv_rc_pingpong: a few by default, powers of 4 up to 1 MiB in full.
PINGPONG_SIZES="1 64 4096 65536 1048576"
PINGPONG_FULL_SIZES="1 4 16 64 256 1024 4096 16384 65536 262144 1048576"
# Between IPv6 GIDs: one packet and many.
PINGPONG_IPV6_SIZES="64 65536"

# pingpong_sizes WHERE ITERS SIZES [OPTS...]
pingpong_sizes() {
	local where=$1 iters=$2 sizes=$3 size

	shift 3
	for size in $sizes; do
		"pingpong_$where" "$size" "$iters" "$@"
	done
}

# --- captures (tests/tools/roce_pcap_check.py judges them) ---------------------------

CAPTURE_PID=

# capture_start IFACE FILE: dumpcap RoCEv2 (UDP 4791) on IFACE into FILE (pcap)
# in the background; returns once dumpcap has opened the interface.
capture_start() {
	log "+ dumpcap -i $1 -f 'udp port 4791' -P -w $2 &"
	dumpcap -q -i "$1" -f "udp port 4791" -P -w "$2" > "$2.log" 2>&1 &
	CAPTURE_PID=$!
	# dumpcap takes seconds to start on a loaded TCG guest
	wait_for 40 test -s "$2" || { cat "$2.log"; fail "dumpcap did not start on $1"; }
}

# capture_stop: let dumpcap flush and exit.
capture_stop() {
	kill -INT "$CAPTURE_PID"
	wait "$CAPTURE_PID" || true
	CAPTURE_PID=
}

# capture_check FILE ARGS...: both judges (this script's ICRC and length checks,
# tshark's dissector) must accept every RoCEv2 packet of FILE.
capture_check() {
	local file=$1

	shift
	log "+ roce_pcap_check.py $* $file"
	python3 "$SROCE_TOP/tests/tools/roce_pcap_check.py" "$@" "$file" ||
		fail "capture $file failed the wire checks"
}
