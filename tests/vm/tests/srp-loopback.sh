#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 240
#
# SRP on sroce, one guest: an ib_srpt (LIO) target exporting a brd ramdisk
# as LUN 0 on sroce0's port, reached through rdma_cm on eth0's address, and
# the kernel's ib_srp initiator logged in to it through add_target. The
# new SCSI disk must be the SRP one (its host is ib_srp's, on sroce0, the
# vendor LIO's; a scsi_debug disk must not pass for it). 1 MiB written raw
# with O_DIRECT must read back the same and be on the target's ramdisk byte
# for byte; then ext4 on the disk, 4 MiB and two odd-sized files written,
# unmounted, caches dropped, read back through a fresh mount by sha256. A
# byte changed in the ramdisk behind the initiator's back must then make
# that compare fail (the read really goes to the target). sroce0 must have
# moved at least a packet per 4 KiB. Log out, take the target down, unload
# ib_srp and ib_srpt. ib_srp registers every I/O's pages with fast
# registration (REG_MR, LOCAL_INV); srpt moves the data with RDMA READ
# (SCSI WRITE) and RDMA WRITE (SCSI READ). With "rxe" as argument the same
# runs on rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
. "$SROCE_TOP/tests/vm/lib-srp.bash"

MIB=4

# corrupt_and_check: flip a byte of the file's first block in /dev/ram0,
# under the initiator; its compare must fail; put the byte back.
corrupt_and_check() {
	local blk

	blk=$(srp_data_block)
	[[ $blk =~ ^[1-9][0-9]*$ ]] || fail "no data block for /data ('$blk')"
	dd if=/dev/ram0 of=blk.orig bs=4096 skip="$blk" count=1 iflag=direct status=none
	cp blk.orig blk.bad
	printf '\x5a' | dd of=blk.bad bs=1 seek=100 conv=notrunc status=none
	cmp -s blk.orig blk.bad && printf '\xa5' | dd of=blk.bad bs=1 seek=100 conv=notrunc status=none
	dd if=blk.bad of=/dev/ram0 bs=4096 seek="$blk" oflag=direct conv=notrunc status=none
	log "byte 100 of block $blk changed in /dev/ram0, under the initiator"
	expect_fail srp_fs_check
	dd if=blk.orig of=/dev/ram0 bs=4096 seek="$blk" oflag=direct conv=notrunc status=none
	srp_fs_check || fail "the files differ after the byte was put back"
}

# scsi_debug_disk: the disk scsi_debug made, e.g. /dev/sdb.
scsi_debug_disk() {
	local b

	for b in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/sd*; do
		[ -b "/dev/${b##*/}" ] && echo "/dev/${b##*/}" && return
	done
	return 1
}

# not_srp_disk: a SCSI disk of scsi_debug's, and /dev/ram0, must fail the
# check that a disk is the SRP one.
not_srp_disk() {
	local disk

	run modprobe scsi_debug dev_size_mb=1 || fail "modprobe scsi_debug"
	wait_for "$WAIT" scsi_debug_disk || fail "scsi_debug made no disk"
	disk=$(scsi_debug_disk)
	expect_fail srp_is_srp_disk "$disk"
	run rmmod scsi_debug || fail "rmmod scsi_debug"
	expect_fail srp_is_srp_disk /dev/ram0
}

trap 'rmmod scsi_debug 2>/dev/null; srp_cleanup' EXIT
srp_dmesg_mark
rdma_setup "${1:-}"
srp_target_up "$(srp_initiator_id "$RDMA_DEV")"
pkts0=$(rdma_pkts)
srp_login "$SROCE_IP" "$(srp_service_guid)"
srp_is_srp_disk "$SRP_DISK" || fail "$SRP_DISK is not the SRP disk"
not_srp_disk

srp_raw_verify 8 1
[ "$(ram_sum 8 1)" = "$SRP_RAW_SUM" ] || fail "the target's ramdisk does not hold the raw write"
log "the target's ramdisk holds the raw write byte for byte"
srp_fs_write $MIB
srp_fs_check || fail "files read back through $SRP_DISK differ from those written"
corrupt_and_check

pkts=$(($(rdma_pkts) - pkts0))
log "$RDMA_DEV sent and received $pkts packets"
[ "$pkts" -ge $(((MIB + 2) * 2 * 256)) ] ||
	fail "$RDMA_DEV moved only $pkts packets for $((MIB + 2)) MiB written and read"

srp_logout
srp_target_down
trap - EXIT
srp_check_dmesg
srp_unload
rdma_teardown
