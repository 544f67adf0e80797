#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 300
#
# NFS over RDMA on sroce, one guest: knfsd with its RDMA listener (svcrdma,
# port 20049) exports a tmpfs directory on eth0's address, and the kernel's
# NFS client (xprtrdma) mounts it over RDMA, NFSv3 then NFSv4.2. Through
# each mount a small tree (a few MiB, files of odd sizes) is written, must
# be on the server's tmpfs byte for byte, and after a remount must read back
# the same. xprtrdma registers its buffers with fast registration (REG_MR,
# LOCAL_INV) and receives SEND_WITH_INV; svcrdma moves the data with RDMA
# READ (NFS WRITE) and RDMA WRITE (NFS READ). Each mount must show an rdma
# transport in /proc/self/mountstats, and the device must have moved at
# least a packet per 4 KiB. With "rxe" as argument the same runs on
# rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
# shellcheck source=tests/vm/lib-nfsrdma.bash
. "$SROCE_TOP/tests/vm/lib-nfsrdma.bash"

# nfs_round NAME VERSOPTS: the tree written through a mount lands on the
# server, reads back through a fresh mount, then is removed through it.
nfs_round() {
	local name=$1 pkts0

	pkts0=$(rdma_pkts)
	nfs_mount "$SROCE_IP" "$2"
	run cp -a "$NFS_SRC" "$NFS_MNT/$name" || fail "$name: copy onto the mount"
	nfs_umount_last	# flushes what is still cached
	expect_tree "$NFS_EXPORT/$name" "$TREE_DIGEST" "$name: the server's tmpfs"
	nfs_mount "$SROCE_IP" "$2"
	expect_tree "$NFS_MNT/$name" "$TREE_DIGEST" "$name: the tree read back over RDMA"
	run rm -r "${NFS_MNT:?}/$name" || fail "$name: remove through the mount"
	nfs_umount_last
	[ ! -e "$NFS_EXPORT/$name" ] || fail "$name: still on the server after rm"
	expect_rdma_pkts "$pkts0" "$name"
}

trap nfs_cleanup EXIT
dmesg -c > /dev/null
rdma_setup "${1:-}"
make_tree
nfs_server_up "$SROCE_IP"
nfs_round v3 vers=3,nolock
nfs_round v4.2 vers=4.2
nfs_cleanup
trap - EXIT
nfs_finish
rdma_teardown
