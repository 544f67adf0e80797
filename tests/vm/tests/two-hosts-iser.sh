#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 300
# full-only
#
# iSER across the link: host 0 is the LIO target (targetcli: a 16 MiB brd
# ramdisk as LUN 0, portal 198.18.0.1:3260 with iSER, ib_isert), host 1 the
# open-iscsi initiator (iscsid, iscsiadm -I iser: ib_iser): it discovers
# the target and logs in over RDMA; the session must be iSER's, each host
# must hold its end's connected rdma_cm ID. 1 MiB of random data written
# with O_DIRECT to the disk's last MiB must be on host 0's ramdisk byte for
# byte (its sha256 crosses in a barrier) and read back the same; a byte
# host 0 changes on its ramdisk must show in what host 1 reads. An ext4
# filesystem on the rest takes a small tree that reads back byte for byte
# after a remount with the caches dropped, and host 1's device must have
# moved a packet per 4 KiB. Then logout, the target removed, ib_iser and
# ib_isert unloaded. With "rxe" as argument both hosts run rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
# shellcheck source=tests/vm/lib-iser.bash
. "$SROCE_TOP/tests/vm/lib-iser.bash"

RAW_AT=$((ISER_RAM_MIB - 1))

# target: serve, check the raw region, change a byte in it and put it back.
target() {
	local digest

	iser_target_up "$SROCE_IP"
	barrier target-up 120
	barrier logged-in 120
	iser_expect_connected ib_isert
	digest=$(peer_exchange raw-written)
	iser_raw_on_target "$RAW_AT" 1 "$digest"
	iser_raw_tamper "$RAW_AT"
	barrier tampered
	barrier tamper-seen
	iser_raw_restore "$RAW_AT"
	barrier restored
	barrier logged-out 120
	iser_target_down
}

initiator() {
	local pkts0 got

	make_tree
	iser_iscsid_up
	barrier target-up 120
	pkts0=$(rdma_pkts)
	iser_discover "$SROCE_PEER_IP"
	iser_login "$SROCE_PEER_IP"
	iser_expect_transport
	iser_expect_connected ib_iser
	barrier logged-in 120
	iser_raw_write "$RAW_AT" 1
	iser_raw_read_back "$RAW_AT" 1
	got=$(peer_exchange "$RAW_DIGEST")
	[ "$got" = raw-written ] || fail "met host 0 at '$got', not raw-written"
	barrier tampered
	iser_raw_sees_tamper "$RAW_AT" 1
	barrier tamper-seen
	barrier restored
	iser_raw_read_back "$RAW_AT" 1
	iser_fs_verify "$RAW_AT"
	expect_rdma_pkts "$pkts0" "iSER"
	iser_logout
	iser_iscsid_down
	barrier logged-out
}

trap iser_cleanup EXIT
iser_dmesg_mark
rdma_setup "${1:-}"
wait_peer 30
if [ "$SROCE_HOST" = 0 ]; then
	target
else
	initiator
fi
trap - EXIT
iser_check_dmesg
iser_unload
rdma_teardown
