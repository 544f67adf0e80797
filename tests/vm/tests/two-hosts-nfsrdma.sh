#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 300
# full-only
#
# NFS over RDMA across the link: knfsd with its RDMA listener (svcrdma) on
# host 0 exports a tmpfs to host 1, whose NFS client (xprtrdma) mounts it
# over RDMA, NFSv3 then NFSv4.2. Through each mount host 1 writes a small
# tree (a few MiB, files of odd sizes); host 0 must hold it byte for byte
# (the digest of every file's sha256 crosses in a barrier), and host 1 must
# read it back the same through a fresh mount. Each mount must show an rdma
# transport in /proc/self/mountstats, and host 1's device must have moved at
# least a packet per 4 KiB.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
# shellcheck source=tests/vm/lib-nfsrdma.bash
. "$SROCE_TOP/tests/vm/lib-nfsrdma.bash"

# round_server NAME: what host 1 wrote as NAME is here, byte for byte.
round_server() {
	local digest

	digest=$(peer_exchange "$1-written")
	expect_tree "$NFS_EXPORT/$1" "$digest" "$1: host 0's tmpfs"
	barrier "$1-checked"
	barrier "$1-removed"
	[ ! -e "$NFS_EXPORT/$1" ] || fail "$1: still on the server after rm"
}

# round_client NAME VERSOPTS: write the tree through a mount, let host 0
# check it, read it back through a fresh mount, remove it.
round_client() {
	local name=$1 pkts0 got

	pkts0=$(rdma_pkts)
	nfs_mount "$SROCE_PEER_IP" "$2"
	run cp -a "$NFS_SRC" "$NFS_MNT/$name" || fail "$name: copy onto the mount"
	nfs_umount_last	# flushes what is still cached
	got=$(peer_exchange "$TREE_DIGEST")
	[ "$got" = "$name-written" ] || fail "$name: met host 0 at '$got'"
	barrier "$name-checked"
	nfs_mount "$SROCE_PEER_IP" "$2"
	expect_tree "$NFS_MNT/$name" "$TREE_DIGEST" "$name: the tree read back over RDMA"
	run rm -r "${NFS_MNT:?}/$name" || fail "$name: remove through the mount"
	nfs_umount_last
	barrier "$name-removed"
	expect_rdma_pkts "$pkts0" "$name"
}

trap nfs_cleanup EXIT
dmesg -c > /dev/null
rdma_setup "${1:-}"
wait_peer 30
if [ "$SROCE_HOST" = 0 ]; then
	nfs_server_up "$SROCE_PEER_IP"
	barrier serving
	round_server v3
	round_server v4.2
	barrier unmounted
else
	make_tree
	barrier serving
	round_client v3 vers=3,nolock
	round_client v4.2 vers=4.2
	barrier unmounted
fi
nfs_cleanup
trap - EXIT
nfs_finish
rdma_teardown
