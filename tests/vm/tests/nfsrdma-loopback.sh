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
# transport in /proc/self/mountstats, and the device must have received at
# least a packet per 4 KiB moved. With "rxe" as argument the same runs on
# rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

NFS_PORT=20049
WORK=$PWD
EXPORT=$WORK/export	# the server's tmpfs
MNT=$WORK/mnt		# the client's mount point
SRC=$WORK/src		# the tree, in the guest's own /root tmpfs

MOUNTED=()		# what cleanup unmounts, newest last
DAEMONS=()		# pids of rpcbind and rpc.mountd
NFSD_STARTED=
MADE_STATE_DIR=

# mount_own TYPE SOURCE DIR [OPTS]: mount and remember it for cleanup.
mount_own() {
	run mount -t "$1" ${4:+-o "$4"} "$2" "$3" || fail "mount -t $1 $2 $3"
	MOUNTED+=("$3")
}

umount_last() {
	local n=$((${#MOUNTED[@]} - 1))

	run umount "${MOUNTED[$n]}" || fail "umount ${MOUNTED[$n]}"
	unset "MOUNTED[$n]"
}

# The tree: sizes around pages, RDMA segments and the 1 MiB rsize/wsize.
make_tree() {
	mkdir -p "$SRC/sub/deeper"
	head -c $((2 << 20)) /dev/urandom > "$SRC/two-mib"
	head -c $(((1 << 20) + 12345)) /dev/urandom > "$SRC/odd"
	head -c 4097 /dev/urandom > "$SRC/sub/page-and-one"
	head -c 777777 /dev/urandom > "$SRC/sub/deeper/middle"
	head -c 1 /dev/urandom > "$SRC/sub/one-byte"
	: > "$SRC/empty"
	TREE_BYTES=$(du -sb --apparent-size "$SRC" | cut -f1)
	(cd "$SRC" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$WORK/tree.sha256"
	log "tree: $(wc -l < "$WORK/tree.sha256") files, $TREE_BYTES bytes"
}

# same_tree DIR: DIR holds exactly the tree's files with the tree's bytes.
same_tree() {
	local got

	got=$(cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) ||
		fail "cannot read the tree under $1"
	[ "$got" = "$(cat "$WORK/tree.sha256")" ] || {
		diff <(echo "$got") "$WORK/tree.sha256" || true
		return 1
	}
}

server_up() {
	run modprobe nfsd || fail "modprobe nfsd"
	run modprobe rpcrdma || fail "modprobe rpcrdma (svcrdma, xprtrdma)"
	# /var/lib is the guest's own (empty) tmpfs: nfs-utils' state goes there.
	[ -e /var/lib/nfs ] || MADE_STATE_DIR=1
	mkdir -p /var/lib/nfs/v4recovery
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	grep -q " /proc/fs/nfsd nfsd " /proc/mounts ||
		mount_own nfsd nfsd /proc/fs/nfsd
	mkdir -p "$EXPORT" "$MNT"
	mount_own tmpfs tmpfs "$EXPORT" size=64m
	# rpc.nfsd registers NFSv3 with rpcbind; mount.nfs asks it for mountd.
	rpcbind -f &
	DAEMONS+=($!)
	wait_for "$WAIT" rpcinfo -p 127.0.0.1 || fail "rpcbind did not start"
	rpc.mountd -F --no-udp &
	DAEMONS+=($!)
	wait_for "$WAIT" eval "rpcinfo -p 127.0.0.1 | grep -q mountd" ||
		fail "rpc.mountd did not register"
	run exportfs -o rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0 \
		"$SROCE_IP:$EXPORT" || fail "exportfs"
	# The shortest NFSv4 grace period (10 s): new state waits it out.
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	[ -e /proc/fs/nfsd/nfsv4gracetime ] && echo 10 > /proc/fs/nfsd/nfsv4gracetime
	run rpc.nfsd --no-udp 4 || fail "rpc.nfsd"
	NFSD_STARTED=1
	log "+ echo rdma $NFS_PORT > /proc/fs/nfsd/portlist"
	echo "rdma $NFS_PORT" > /proc/fs/nfsd/portlist ||
		fail "svcrdma could not listen on $RDMA_DEV ($SROCE_IP:$NFS_PORT)"
	grep -q "^rdma $NFS_PORT$" /proc/fs/nfsd/portlist ||
		fail "no rdma listener in portlist: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
	log "knfsd listens on: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
}

server_down() {
	[ -z "$NFSD_STARTED" ] || {
		exportfs -ua
		rpc.nfsd 0
	}
	NFSD_STARTED=
	local pid

	for pid in "${DAEMONS[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	DAEMONS=()
}

# mount_stats_xprt DIR: the transport of DIR's mount in mountstats ("rdma"
# from its line "xprt: rdma 0 0 1 ...").
mount_stats_xprt() {
	awk -v dir="$1" '$1 == "device" { here = ($5 == dir) }
		here && $1 == "xprt:" { print $2; exit }' /proc/self/mountstats
}

rcvd_pkts() { cat "/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters/rcvd_pkts"; }

# nfs_mount VERSOPTS: mount the export on MNT over RDMA and check the
# transport the client chose. The export is NFSv4's root (fsid=0: the
# guest's / is 9p, which knfsd cannot export as the pseudo root).
nfs_mount() {
	local xprt path=$EXPORT

	[[ $1 != vers=4* ]] || path=/
	mount_own nfs "$SROCE_IP:$path" "$MNT" "$1,proto=rdma,port=$NFS_PORT"
	xprt=$(mount_stats_xprt "$MNT")
	log "$MNT: $(grep " $MNT " /proc/mounts | cut -d' ' -f4)"
	[ "$xprt" = rdma ] || fail "$MNT is on transport '$xprt' (mountstats), not rdma"
	log "mountstats: $MNT is on transport $xprt"
}

# nfs_round NAME VERSOPTS: the tree written through a mount lands on the
# server, reads back through a fresh mount, then is removed through it.
nfs_round() {
	local name=$1 pkts0 pkts

	pkts0=$(rcvd_pkts)
	nfs_mount "$2"
	run cp -a "$SRC" "$MNT/$name" || fail "$name: copy onto the mount"
	umount_last	# flushes what is still cached
	same_tree "$EXPORT/$name" || fail "$name: the server's tmpfs does not hold the tree"
	log "$name: the tree written over RDMA is on the server, byte for byte"
	nfs_mount "$2"
	same_tree "$MNT/$name" || fail "$name: the tree read back over RDMA differs"
	log "$name: the tree reads back over RDMA, byte for byte"
	run rm -r "${MNT:?}/$name" || fail "$name: remove through the mount"
	umount_last
	[ ! -e "$EXPORT/$name" ] || fail "$name: still on the server after rm"
	pkts=$(($(rcvd_pkts) - pkts0))
	log "$name: $RDMA_DEV received $pkts packets"
	# Written once, read once: 2 * TREE_BYTES over RDMA, at most 4 KiB a packet.
	[ "$pkts" -ge $((2 * TREE_BYTES / 4096)) ] ||
		fail "$name: $RDMA_DEV received only $pkts packets for 2 x $TREE_BYTES bytes"
}

# The client's mount first, then the server, then what it stood on.
cleanup() {
	local i

	grep -q " $MNT nfs" /proc/mounts && umount "$MNT"
	server_down
	for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
		[ "${MOUNTED[$i]}" = "$MNT" ] || umount "${MOUNTED[$i]}"
	done
	MOUNTED=()
	[ -z "$MADE_STATE_DIR" ] || rm -rf /var/lib/nfs
	MADE_STATE_DIR=
}
trap cleanup EXIT

dmesg -c > /dev/null
rdma_setup "${1:-}"
make_tree
server_up
nfs_round v3 vers=3,nolock
nfs_round v4.2 vers=4.2
cleanup
trap - EXIT
if dmesg | grep -E "rpcrdma|svcrdma|nfsd|NFS" | grep -Ei "error|fail|flush|disconnect"; then
	fail "xprtrdma, svcrdma or knfsd complained"
fi
# Nothing may keep the RDMA transports busy once the mounts and knfsd are
# gone; the rest of the NFS stack is the harness's to unload.
run rmmod rpcrdma || fail "rpcrdma still in use"
rdma_teardown
