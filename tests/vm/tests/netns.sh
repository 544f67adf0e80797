#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# cpus: 2
# timeout: 420
#
# sroce devices on netdevs inside network namespaces, as containers use
# them. Two pairs of namespaces, each pair joined by a veth link, both
# pairs with the same two addresses; each namespace creates an sroce
# device on its end. In each pair: ibv_rc_pingpong and ibv_ud_pingpong
# with -c and rping -V from one namespace to the other. Their RoCE
# packets must cross the veth link (the loopback short-cut is for one
# namespace), and none may reach the other pair, whose devices have the
# same GIDs. Deleting a namespace removes the devices on its link.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

NS_IP_A=198.18.20.1
NS_IP_B=198.18.20.2
PAIRS="p1 p2"

in_ns() {
	local ns=$1

	shift
	ip netns exec "$ns" "$@"
}

hw_counter() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }
veth_tx_packets() { in_ns "$1" cat "/sys/class/net/$2/statistics/tx_packets"; }

ns_teardown() {
	local p

	for p in $PAIRS; do
		ip netns delete "${p}a" 2>/dev/null || true
		ip netns delete "${p}b" 2>/dev/null || true
	done
}

# pair_up P: namespaces Pa and Pb, veth Pva (in Pa) - Pvb (in Pb) with
# NS_IP_A and NS_IP_B, and devices srocePa, srocePb made inside them.
pair_up() {
	local p=$1 end ip

	run ip netns add "${p}a" || fail "ip netns add failed"
	run ip netns add "${p}b" || fail "ip netns add failed"
	run ip link add "${p}va" netns "${p}a" type veth peer name "${p}vb" netns "${p}b" ||
		fail "cannot create the veth pair"
	for end in a b; do
		ip=$NS_IP_A
		[ "$end" = a ] || ip=$NS_IP_B
		in_ns "$p$end" ip link set lo up
		run in_ns "$p$end" ip addr add "$ip/24" dev "${p}v$end"
		run in_ns "$p$end" ip link set "${p}v$end" up
		run in_ns "$p$end" rdma link add "sroce$p$end" type sroce netdev "${p}v$end" ||
			fail "rdma link add inside namespace $p$end failed"
		wait_for "$WAIT" ibdev_exists "sroce$p$end" || fail "sroce$p$end did not appear"
		expect_gid "sroce$p$end" "::ffff:$ip" "RoCE v2" 10
	done
	wait_for 10 in_ns "${p}a" busybox ping -c 1 -W 1 "$NS_IP_B" ||
		fail "$NS_IP_B unreachable from ${p}a"
}

# pair_pingpong P TOOL SIZE ITERS: TOOL -c, server in Pb, client in Pa.
pair_pingpong() {
	local p=$1 tool=$2 size=$3 iters=$4 tag ia ib

	ia=$(gid_index "sroce${p}a" "$NS_IP_A")
	ib=$(gid_index "sroce${p}b" "$NS_IP_B")
	next_port
	tag=$p-${tool#ibv_}-$size
	LISTEN_NS=${p}b start_server "$tag.server" "$PERF_PORT" ip netns exec "${p}b" "$tool" \
		-d "sroce${p}b" -g "$ib" -p "$PERF_PORT" -s "$size" -n "$iters" -c
	run_client "$tag.client" ip netns exec "${p}a" "$tool" -d "sroce${p}a" -g "$ia" \
		-p "$PERF_PORT" -s "$size" -n "$iters" -c "$NS_IP_B"
	finish_server "$tag.server"
	cat "$tag.server"
	check_pingpong "$tag.client" "$iters"
	check_pingpong "$tag.server" "$iters"
}

# pair_rping P COUNT: rdma_cm from Pa to Pb, every ping's data verified.
pair_rping() {
	local p=$1 tag=$1-rping

	RPING_COUNT=$2
	next_port
	LISTEN_NS=${p}b start_server "$tag.server" "$PERF_PORT" ip netns exec "${p}b" stdbuf -oL \
		rping -s -a "$NS_IP_B" -p "$PERF_PORT" -C "$RPING_COUNT" -V -v
	run_client "$tag.client" ip netns exec "${p}a" stdbuf -oL \
		rping -c -a "$NS_IP_B" -p "$PERF_PORT" -C "$RPING_COUNT" -V -v
	check_rping_client "$tag.client"
	finish_server "$tag.server"
	check_rping_server "$tag.server"
}

# expect_untouched P: pair P's devices received nothing (another pair ran).
expect_untouched() {
	local end

	for end in a b; do
		[ "$(hw_counter "sroce$1$end" rcvd_pkts)" = 0 ] ||
			fail "sroce$1$end received $(hw_counter "sroce$1$end" rcvd_pkts) packets of another pair"
	done
	log "pair $1 received nothing of the other pair's traffic"
}

# pair_traffic P: the three tools; the sender's RoCE packets all crossed
# its veth end (it sent at least as many packets as the device did).
pair_traffic() {
	local p=$1 veth_before sent

	veth_before=$(veth_tx_packets "${p}a" "${p}va")
	pair_pingpong "$p" ibv_rc_pingpong 4096 50
	pair_pingpong "$p" ibv_ud_pingpong 1024 50
	pair_rping "$p" 5
	sent=$(hw_counter "sroce${p}a" sent_pkts)
	[ "$sent" -gt 100 ] || fail "sroce${p}a sent only $sent packets"
	[ $(($(veth_tx_packets "${p}a" "${p}va") - veth_before)) -ge "$sent" ] ||
		fail "sroce${p}a sent $sent packets, fewer crossed ${p}va: a short-cut across namespaces"
	[ "$(hw_counter "sroce${p}b" rcvd_pkts)" -gt 100 ] || fail "sroce${p}b received too little"
	log "pair $p: $sent packets from sroce${p}a over ${p}va"
}

require_provider
sroce_load
run modprobe rdma_ucm || fail "modprobe rdma_ucm failed"
trap ns_teardown EXIT
for p in $PAIRS; do
	pair_up "$p"
done
pair_traffic p1
expect_untouched p2
pair_traffic p2

# The namespace goes, its veth end with it (and the peer end): both devices.
run ip netns delete p1a
wait_for 30 eval '! ibdev_exists srocep1a && ! ibdev_exists srocep1b' ||
	fail "devices on the deleted namespace's link still present: $(ibdev_list | tr '\n' ' ')"
log "namespace p1a deleted: srocep1a and srocep1b removed"
pair_pingpong p2 ibv_rc_pingpong 1024 20
run ip netns delete p1b
run ip netns delete p2a
run ip netns delete p2b
wait_for 30 eval '! ibdev_exists srocep2a && ! ibdev_exists srocep2b' ||
	fail "pair p2's devices still present after their namespaces went"
trap - EXIT
run rmmod sroce || fail "rmmod sroce failed"
