#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 300
# full-only
#
# NVMe over Fabrics across the link: host 0 is the nvmet-rdma target (a
# brd ramdisk as namespace 1, listening on 198.18.0.1, its receive
# buffers on SRQs: use_srq=1, which the other tests leave off), host 1 the
# nvme-rdma host: it discovers the subsystem, connects with a write and a
# poll queue, and fio writes 4 MiB at random with crc32c verify headers
# (half through queue depth 16, half polled) and reads every block back.
# After the disconnect each host's RDMA device holds what it held before
# the connection. With "rxe" as argument both hosts run rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
. "$SROCE_TOP/tests/vm/lib-nvmeof.bash"

NVMF_USE_SRQ=1
trap nvmf_cleanup EXIT
nvmf_dmesg_mark
rdma_setup "${1:-}"
wait_peer 30
nvmf_across_link 4
trap - EXIT
nvmf_check_dmesg
nvmf_unload
rdma_teardown
