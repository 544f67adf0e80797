#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 240
#
# iSCSI over RDMA (iSER) on sroce, one guest: a LIO target made with
# targetcli exports a 16 MiB brd ramdisk as LUN 0 on eth0's address, its
# portal with iSER enabled (ib_isert), and open-iscsi's initiator (iscsid,
# iscsiadm -I iser: ib_iser) discovers it and logs in over RDMA. The
# session must be iSER's (iscsiadm's transport, the SCSI host's driver) and
# both ends' QPs on the device. 1 MiB of random data written with O_DIRECT
# to the disk's last MiB must be on the ramdisk byte for byte and read back
# the same, and a byte changed on the ramdisk must show in what the
# initiator reads; an ext4 filesystem on the rest takes a small tree (a few
# MiB, files of odd sizes) that reads back byte for byte after a remount
# with the caches dropped. The device must have moved a packet per 4 KiB.
# Then logout, the target cleared, ib_iser and ib_isert unloaded. ib_iser
# registers its buffers with fast registration (REG_MR, LOCAL_INV, remote
# invalidation); ib_isert moves the data with RDMA READ (SCSI WRITE) and
# RDMA WRITE (SCSI READ) through rdma_rw. With "rxe" as argument the same
# runs on rdma_rxe; a second argument "default" logs in through open-iscsi's
# TCP iface instead, which the transport check must fail.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
# shellcheck source=tests/vm/lib-iser.bash
. "$SROCE_TOP/tests/vm/lib-iser.bash"

ISER_IFACE=${2:-iser}
trap iser_cleanup EXIT
iser_dmesg_mark
rdma_setup "${1:-}"
make_tree
iser_target_up "$SROCE_IP"
iser_iscsid_up
pkts0=$(rdma_pkts)
iser_discover "$SROCE_IP"
iser_login "$SROCE_IP"
iser_expect_transport
iser_expect_connected ib_iser ib_isert
iser_raw_verify $((ISER_RAM_MIB - 1)) 1
iser_fs_verify $((ISER_RAM_MIB - 1))
expect_rdma_pkts "$pkts0" "iSER"
iser_logout
iser_iscsid_down
iser_target_down
trap - EXIT
iser_check_dmesg
iser_unload
rdma_teardown
