#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 300
# full-only
#
# SRP across the link: host 0 is the ib_srpt target (a brd ramdisk as LUN
# 0), host 1 the ib_srp initiator, logged in through rdma_cm to 198.18.0.1.
# Host 1's port ID crosses to host 0 for the ACL, host 0's service GUID to
# host 1 for add_target. 2 MiB written raw with O_DIRECT must read back the
# same on host 1 and be on host 0's ramdisk byte for byte (its sha256
# crosses); then ext4, 8 MiB and two odd-sized files written and read back
# by sha256 after dropping caches. Host 1's device must have moved at least
# a packet per 4 KiB. Log out, take the target down, unload. With "rxe" as
# first argument both hosts run rdma_rxe. With "srq" as second argument
# srpt's receive buffers are on an SRQ (use_srq=1), which host 0 must hold
# while logged in: the data path works on sroce, but the stock ib_srpt
# (6.1 and 6.12) then WARNs in srpt_cache_put() when the channel is
# released (it puts the per-channel receive cache that use_srq never
# made), so the harness judges such a run a failure
# (Documentation/consumers.md).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
. "$SROCE_TOP/tests/vm/lib-srp.bash"

MIB=8
SRP_RAM_MIB=32
[ "${2:-}" != srq ] || SRP_USE_SRQ=1

target() {
	local initiator got

	initiator=$(peer_exchange target-waits)
	srp_target_up "$initiator"
	got=$(peer_exchange "$(srp_service_guid)")
	[ "$got" = guid-wanted ] || fail "met host 1 at '$got'"
	got=$(peer_exchange raw-wanted 240)
	[ "$(ram_sum 0 2)" = "$got" ] || fail "host 0's ramdisk does not hold host 1's raw write"
	log "host 0's ramdisk holds host 1's raw write byte for byte"
	if [ "$SRP_USE_SRQ" = 1 ]; then
		rdma resource show | grep -E "$RDMA_DEV: .* srq [1-9]" ||
			fail "srpt use_srq=1 made no SRQ on $RDMA_DEV: $(rdma resource show)"
	fi
	barrier target-checked
	barrier logged-out 240
	srp_target_down
}

initiator() {
	local guid pkts0 pkts

	guid=$(peer_exchange "$(srp_initiator_id "$RDMA_DEV")")
	guid=$(peer_exchange guid-wanted)
	pkts0=$(rdma_pkts)
	srp_login "$SROCE_PEER_IP" "$guid"
	srp_is_srp_disk "$SRP_DISK" || fail "$SRP_DISK is not the SRP disk"
	srp_raw_verify 0 2
	peer_exchange "$SRP_RAW_SUM" > /dev/null
	barrier target-checked
	srp_fs_write $MIB
	srp_fs_check || fail "files read back through $SRP_DISK differ from those written"
	pkts=$(($(rdma_pkts) - pkts0))
	log "$RDMA_DEV sent and received $pkts packets"
	[ "$pkts" -ge $(((MIB + 2) * 2 * 256)) ] ||
		fail "$RDMA_DEV moved only $pkts packets for $((MIB + 2)) MiB written and read"
	srp_logout
	barrier logged-out
}

trap srp_cleanup EXIT
srp_dmesg_mark
rdma_setup "${1:-}"
wait_peer 30
if [ "$SROCE_HOST" = 0 ]; then
	target
else
	initiator
fi
trap - EXIT
srp_check_dmesg
srp_unload
rdma_teardown
