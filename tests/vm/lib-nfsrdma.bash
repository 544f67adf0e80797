# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA for tests/vm/tests/*nfsrdma*.sh, sourced after lib.sh and
# lib-rdma.bash inside the guest: knfsd with its RDMA listener (svcrdma)
# exporting a tmpfs, the NFS client (xprtrdma) mounting it over RDMA, a
# small tree of files to move and compare. The guest's root is the host's,
# read-only, so the daemons run by hand and keep their state in the guest's
# own /var/lib tmpfs. Call nfs_cleanup on exit: it unmounts, stops the
# server, and leaves the guest as it was.
#
# Named .bash, not .sh, so that run-suite.sh never takes it for a test.

NFS_PORT=20049
NFS_WORK=$PWD
NFS_EXPORT=$NFS_WORK/export	# the server's tmpfs
NFS_MNT=$NFS_WORK/mnt		# the client's mount point
NFS_SRC=$NFS_WORK/src		# the tree, in the guest's own /root tmpfs
TREE_SRC=$NFS_SRC
# shellcheck source=tests/vm/lib-tree.bash
. "$SROCE_TOP/tests/vm/lib-tree.bash"

NFS_MOUNTED=()		# what nfs_cleanup unmounts, newest last
NFS_DAEMONS=()		# pids of rpcbind and rpc.mountd
NFSD_STARTED=
NFS_MADE_STATE_DIR=

# nfs_mount_own TYPE SOURCE DIR [OPTS]: mount and remember it for cleanup.
nfs_mount_own() {
	run mount -t "$1" ${4:+-o "$4"} "$2" "$3" || fail "mount -t $1 $2 $3"
	NFS_MOUNTED+=("$3")
}

nfs_umount_last() {
	local n=$((${#NFS_MOUNTED[@]} - 1))

	run umount "${NFS_MOUNTED[$n]}" || fail "umount ${NFS_MOUNTED[$n]}"
	unset "NFS_MOUNTED[$n]"
}

# nfs_server_up CLIENT: knfsd exports NFS_EXPORT to CLIENT (an address),
# over TCP and RDMA (port NFS_PORT on RDMA_DEV). The export is NFSv4's root
# (fsid=0): the guest's / is 9p, which knfsd cannot export as the pseudo
# root.
nfs_server_up() {
	run modprobe nfsd || fail "modprobe nfsd"
	run modprobe rpcrdma || fail "modprobe rpcrdma (svcrdma, xprtrdma)"
	[ -e /var/lib/nfs ] || NFS_MADE_STATE_DIR=1
	mkdir -p /var/lib/nfs/v4recovery
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	grep -q " /proc/fs/nfsd nfsd " /proc/mounts ||
		nfs_mount_own nfsd nfsd /proc/fs/nfsd
	mkdir -p "$NFS_EXPORT"
	nfs_mount_own tmpfs tmpfs "$NFS_EXPORT" size=64m
	# rpc.nfsd registers NFSv3 with rpcbind; mount.nfs asks it for mountd.
	rpcbind -f &
	NFS_DAEMONS+=($!)
	wait_for "$WAIT" rpcinfo -p 127.0.0.1 || fail "rpcbind did not start"
	rpc.mountd -F --no-udp &
	NFS_DAEMONS+=($!)
	wait_for "$WAIT" eval "rpcinfo -p 127.0.0.1 | grep -q mountd" ||
		fail "rpc.mountd did not register"
	run exportfs -o rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0 \
		"$1:$NFS_EXPORT" || fail "exportfs"
	# The shortest NFSv4 grace period (10 s): new state waits it out.
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	[ ! -e /proc/fs/nfsd/nfsv4gracetime ] || echo 10 > /proc/fs/nfsd/nfsv4gracetime
	run rpc.nfsd --no-udp 4 || fail "rpc.nfsd"
	NFSD_STARTED=1
	log "+ echo rdma $NFS_PORT > /proc/fs/nfsd/portlist"
	echo "rdma $NFS_PORT" > /proc/fs/nfsd/portlist ||
		fail "svcrdma could not listen on $RDMA_DEV ($SROCE_IP:$NFS_PORT)"
	grep -q "^rdma $NFS_PORT$" /proc/fs/nfsd/portlist ||
		fail "no rdma listener in portlist: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
	log "knfsd listens on: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
}

nfs_server_down() {
	local pid

	if [ -n "$NFSD_STARTED" ]; then
		exportfs -ua
		rpc.nfsd 0
	fi
	NFSD_STARTED=
	for pid in "${NFS_DAEMONS[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	NFS_DAEMONS=()
}

# mount_stats_xprt DIR: the transport of DIR's mount in mountstats ("rdma"
# from its line "xprt: rdma 0 0 1 ...").
mount_stats_xprt() {
	awk -v dir="$1" '$1 == "device" { here = ($5 == dir) }
		here && $1 == "xprt:" { print $2; exit }' /proc/self/mountstats
}

# nfs_mount SERVER VERSOPTS: mount SERVER's export on NFS_MNT over RDMA
# and check the transport the client chose.
nfs_mount() {
	local xprt path=$NFS_EXPORT

	[[ $2 != vers=4* ]] || path=/
	mkdir -p "$NFS_MNT"
	nfs_mount_own nfs "$1:$path" "$NFS_MNT" "$2,proto=rdma,port=$NFS_PORT"
	xprt=$(mount_stats_xprt "$NFS_MNT")
	log "$NFS_MNT: $(grep " $NFS_MNT " /proc/mounts | cut -d' ' -f4)"
	[ "$xprt" = rdma ] || fail "$NFS_MNT is on transport '$xprt' (mountstats), not rdma"
	log "mountstats: $NFS_MNT is on transport $xprt"
}

# The client's mount first, then the server, then what it stood on.
nfs_cleanup() {
	local i

	! grep -q " $NFS_MNT nfs" /proc/mounts || umount "$NFS_MNT"
	nfs_server_down
	for ((i = ${#NFS_MOUNTED[@]} - 1; i >= 0; i--)); do
		[ "${NFS_MOUNTED[$i]}" = "$NFS_MNT" ] || umount "${NFS_MOUNTED[$i]}"
	done
	NFS_MOUNTED=()
	[ -z "$NFS_MADE_STATE_DIR" ] || rm -rf /var/lib/nfs
	NFS_MADE_STATE_DIR=
}

# nfs_finish: after nfs_cleanup, knfsd and the client must not have
# complained, and nothing may keep the RDMA transports busy (the rest of
# the NFS stack is the harness's to unload).
nfs_finish() {
	if dmesg | grep -E "rpcrdma|svcrdma|nfsd|NFS" | grep -Ei "error|fail|flush|disconnect"; then
		fail "xprtrdma, svcrdma or knfsd complained"
	fi
	run rmmod rpcrdma || fail "rpcrdma still in use"
}
