#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 480
#
# rdma_cm between sroce and rdma_rxe: sroce serves on host 0 and rxe
# connects from host 1, then the other way round. In each direction rping
# -V (4 KiB pings, each checked), ucmatose (2 RC connections) and udaddy
# (2 UD ones through SIDR): MADs to and from the other implementation's
# QP1, then RC and UD traffic on the QPs rdma_cm set up; then mckey: host
# 1 sends 3 datagrams to a group host 0 joined, so multicast goes from
# rxe to sroce and then from sroce to rxe.
# By hand,
# "vm-run --hosts 2 tests/vm/tests/two-hosts-interop-rxe-rdma-cm.sh rxe"
# runs rxe on both hosts (interop_both_directions).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_cm_traffic() {
	log "--- $1: $RDMA_DEV (host $SROCE_HOST) ---"
	rdma_cm_setup peer
	rping_pair two_hosts "$(cm_server_ip)" 10 -S 4096
	ucmatose_pair two_hosts 2 10
	udaddy_pair two_hosts 2 10
	mckey_two_hosts 239.198.18.2 3
}

interop_both_directions rdma_cm_traffic "$@"
log "sroce and rdma_rxe connect through rdma_cm in both directions"
