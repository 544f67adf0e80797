#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 600
# full-only
#
# NVMe over Fabrics between sroce and rdma_rxe: two-hosts-nvmeof.sh's
# connection (host 0 the nvmet-rdma target, host 1 the nvme-rdma host,
# 4 MiB of fio verify) first with the target on sroce and the host on
# rxe, then with the target on rxe and the host on sroce.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
. "$SROCE_TOP/tests/vm/lib-nvmeof.bash"

# direction WHICH: one connection; the NVMe modules go before the RDMA
# device does (interop_both_directions deletes it next).
direction() {
	log "$1: this host ($([ "$SROCE_HOST" = 0 ] && echo target || echo host)) on $RDMA_DEV"
	nvmf_across_link 4
	nvmf_unload
}

trap nvmf_cleanup EXIT
nvmf_dmesg_mark
interop_both_directions direction "${1:-}"
trap - EXIT
nvmf_check_dmesg
rdma_teardown
log "NVMe-oF between sroce and rdma_rxe works in both directions"
