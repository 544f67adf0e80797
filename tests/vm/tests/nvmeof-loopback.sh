#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 240
#
# NVMe over Fabrics on sroce, one guest: an nvmet-rdma target (configfs)
# exporting a brd ramdisk on eth0's address, and the kernel's nvme-rdma
# host connected to it through /dev/nvme-fabrics (what `nvme connect -t
# rdma` writes). 1 MiB of random data goes to the namespace with O_DIRECT,
# must be on the target's ramdisk byte for byte, and must read back the
# same; then disconnect and take the target down. nvme-rdma refuses a
# device without fast registration (IB_DEVICE_MEM_MGT_EXTENSIONS), and
# every I/O uses it: REG_MR of the host's pages, the target's READ or
# WRITE through that key, then its SEND with invalidate (or the host's
# LOCAL_INV). With "rxe" as argument the same runs on rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
. "$SROCE_TOP/tests/vm/lib-nvmeof.bash"

MIB=1

trap nvmf_cleanup EXIT
nvmf_dmesg_mark
rdma_setup "${1:-}"
nvmf_target_up "$SROCE_IP"
nvmf_connect_raw "$SROCE_IP"

head -c $((MIB << 20)) /dev/urandom > pattern
run dd if=pattern of="$NVMF_NS" bs=64k oflag=direct status=none || fail "write to $NVMF_NS"
cmp -n $((MIB << 20)) pattern /dev/ram0 || fail "the target's ramdisk does not hold what was written"
run dd if="$NVMF_NS" of=readback bs=64k count=$((MIB * 16)) iflag=direct status=none ||
	fail "read from $NVMF_NS"
cmp pattern readback || fail "read back differs from what was written"
log "$MIB MiB written and read back over nvme-rdma, byte-exact"

nvmf_disconnect
nvmf_target_down
trap - EXIT
nvmf_check_dmesg
nvmf_unload
rdma_teardown
