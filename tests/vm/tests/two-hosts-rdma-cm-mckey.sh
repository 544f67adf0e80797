#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 300
#
# Multicast through rdma_cm, across the link: host 0 joins a group
# with mckey and waits for MCKEY_SENDS datagrams; host 1 joins as a sender
# MCKEY_SENDS times, one datagram each. Across the link, not on one
# device: there rdma_rxe's sender hangs 50 s destroying its QP and WARNs
# in __rxe_cleanup (6.1 and 6.12). One datagram a run: mckey's sender
# posts unsignaled sends and destroys its QP at once, so a device that
# transmits after the post (rxe) gets only the first out.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

GROUP=239.198.18.1
MCKEY_SENDS=3

# multicast_offered: the device advertises multicast groups.
multicast_offered() {
	local groups

	groups=$(devinfo_field "$RDMA_DEV" max_mcast_grp)
	[ "${groups:-0}" != 0 ] || fail "$RDMA_DEV advertises no multicast group (max_mcast_grp 0)"
	log "$RDMA_DEV: max_mcast_grp $groups"
}

receive() {
	local out=mckey.receiver rc=0 pid

	log "+ mckey -m $GROUP -b $SROCE_IP -C $MCKEY_SENDS > $out &"
	timeout "$CM_TIMEOUT" stdbuf -oL mckey -m "$GROUP" -b "$SROCE_IP" -C "$MCKEY_SENDS" \
		> "$out" 2>&1 &
	pid=$!
	wait_for 30 grep -q '^mckey: joined ' "$out" || { cat "$out"; fail "mckey did not join $GROUP"; }
	barrier joined
	wait "$pid" || rc=$?
	cat "$out"
	[ "$rc" = 0 ] || fail "mckey receiver exited with status $rc"
	# mckey exits 0 after a failed join too: its lines are the verdict.
	expect_lines "$out" 1 '^data transfers complete$'
	expect_lines "$out" 1 '^return status 0$'
	log "host 0 received $MCKEY_SENDS datagrams sent to $GROUP"
}

send() {
	local i CMD_TIMEOUT=$CM_TIMEOUT	# run_client's

	barrier joined
	for ((i = 1; i <= MCKEY_SENDS; i++)); do
		run_client "mckey.sender$i" stdbuf -oL mckey -m "$GROUP" -b "$SROCE_IP" -s -C 1
		expect_lines "mckey.sender$i" 1 '^mckey: joined '
		expect_lines "mckey.sender$i" 1 '^data transfers complete$'
	done
}

rdma_setup "$@"
wait_peer 30
rdma_cm_setup peer
multicast_offered
if [ "$SROCE_HOST" = 0 ]; then receive; else send; fi
barrier finished "$CM_TIMEOUT"
