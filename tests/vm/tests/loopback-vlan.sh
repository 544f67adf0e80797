#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# cpus: 2
# timeout: 300
#
# RDMA over a VLAN of the device's netdev: sroce0 on eth0, and eth0.100
# (VLAN 100) with its own address, whose RoCE v2 GID ib_core gives sroce0.
# rdma_cm connects through that address - rping, ucmatose, udaddy - which
# needs ib_cm to answer each request from the VLAN's GID, found only by
# the VLAN ID in the request's completion. Then the kernel-verbs cases
# through the VLAN GID: a UD receive names IPv4 and VLAN 100.
# With "rxe" as argument the same runs on rdma_rxe, but for the kernel-verbs
# cases (Documentation/interop.md).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

VLAN_DEV=eth0.100
VLAN_IP=198.19.100.1

vlan_teardown() { ip link delete "$VLAN_DEV" 2>/dev/null || true; }

rdma_setup "${1:-}"
trap vlan_teardown EXIT
run modprobe 8021q || fail "modprobe 8021q failed"
run ip link add link eth0 name "$VLAN_DEV" type vlan id 100
run ip addr add "$VLAN_IP/24" dev "$VLAN_DEV"
run ip link set "$VLAN_DEV" up
expect_gid "$RDMA_DEV" "::ffff:$VLAN_IP" "RoCE v2" 10
GID_INDEX=$(gid_index "$RDMA_DEV" "$VLAN_IP")
[ -n "$GID_INDEX" ] || fail "no GID index for ::ffff:$VLAN_IP"
log "VLAN 100 GID ::ffff:$VLAN_IP at index $GID_INDEX"
SROCE_IP=$VLAN_IP	# where the rdma_cm servers listen

rdma_cm_setup
rping_pair loopback "$VLAN_IP" 5
ucmatose_pair loopback 2 5
udaddy_pair loopback 2 5
if [ "$RDMA_DEV" = rxe0 ]; then
	log "kernel-verbs cases not run on rxe: its kernel RC SENDs through a VLAN GID never complete (Documentation/interop.md)"
else
	run_kverbs_cases
fi
vlan_teardown
trap - EXIT
rdma_teardown
