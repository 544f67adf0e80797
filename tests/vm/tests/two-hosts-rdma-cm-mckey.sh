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
# in __rxe_cleanup (6.1 and 6.12). One datagram a sender run
# (mckey_two_hosts).
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

rdma_setup "$@"
wait_peer 30
rdma_cm_setup peer
multicast_offered
mckey_two_hosts "$GROUP" "$MCKEY_SENDS"
