# SPDX-License-Identifier: GPL-2.0
#
# SRP (SCSI RDMA Protocol) helpers for tests/vm/tests/*srp*.sh, sourced
# after lib.sh and lib-rdma.bash inside the guest:
#   . "$SROCE_TOP/tests/vm/lib-srp.bash"
#   trap srp_cleanup EXIT
#
# Target: ib_srpt (LIO) configured through configfs, a brd ramdisk
# (/dev/ram0, SRP_RAM_MIB) as iblock backstore, LUN 0 of one portal group
# on the target port named after RDMA_DEV's GID 0 (srpt's "0x<32 hex>"
# form), one ACL for the initiator's port ID (srpt has no demo mode). On
# RoCE the initiator reaches it through rdma_cm: srpt listens on
# discovery_auth/rdma_cm_port (configfs; not a module parameter in 6.1 or
# 6.12). Initiator: ib_srp, a target added through its add_target file in
# the rdma_cm form (id_ext, ioc_guid, dest=ADDR:PORT). After srp_login:
# SRP_SHOST (the new SCSI host, e.g. host2) and SRP_DISK (e.g. /dev/sda).
#
# srp_cleanup undoes whatever of this the test did, in reverse, also after
# a failure half-way: a shared boot's next test must find no SCSI host, no
# configfs entry and no configfs mount of ours.

SRP_TARGET=/sys/kernel/config/target
SRP_CM_PORT=5555
SRP_RAM_MIB=${SRP_RAM_MIB:-16}
# The portal group's use_srq attribute (off by default): srpt's receive
# buffers on one SRQ of the device, shared by all its channels.
SRP_USE_SRQ=${SRP_USE_SRQ:-0}
SRP_BACKSTORE=$SRP_TARGET/core/iblock_0/srp_ram0
SRP_TPORT='' SRP_TPG='' SRP_ACL=''
SRP_SHOST='' SRP_DISK='' SRP_MNT=$PWD/srp-mnt
SRP_TARGET_UP=0 SRP_FS_MOUNTED=0 SRP_RAW_SUM=''
SRP_COMPLAINTS='ib_srpt?|scsi host[0-9]+: (ib_srp|SRP)|sd [0-9:]+.*(error|fail|reset)|I/O error'
# target_core_mod loads its file, pscsi and user backends itself.
SRP_MODULES="ib_srp scsi_transport_srp sd_mod ib_srpt target_core_iblock target_core_file
	target_core_pscsi target_core_user target_core_mod brd"

# --- names --------------------------------------------------------------------

# srp_gid_hex DEV: GID 0 of DEV's port 1 (its link-local, from the MAC) as
# 32 hex digits: what srpt names the port after, what ib_srp puts in the
# second half of its initiator port ID.
srp_gid_hex() {
	local gid

	gid=$(cat "/sys/class/infiniband/$1/ports/1/gids/0") || fail "$1 has no GID 0"
	gid=${gid//:/}
	if [[ ! $gid =~ ^[0-9a-f]{32}$ ]] || [ "$gid" = "${gid//?/0}" ]; then
		fail "$1: bad GID 0 '$gid'"
	fi
	echo "$gid"
}

# srp_initiator_id DEV: ib_srp's initiator port ID on DEV as srpt names its
# ACL: initiator_ext (0 unless add_target sets it), then the interface ID
# of GID 0.
srp_initiator_id() {
	local gid

	gid=$(srp_gid_hex "$1")
	echo "0x0000000000000000${gid:16}"
}

# srp_service_guid: the ID srpt answers to (id_ext and ioc_guid both), by
# default the node GUID of the first RDMA device it saw.
srp_service_guid() {
	cat /sys/module/ib_srpt/parameters/srpt_service_guid
}

# --- target -------------------------------------------------------------------

# srp_target_up INITIATOR-ID: LUN 0 (/dev/ram0) on RDMA_DEV's srpt port for
# INITIATOR-ID (srp_initiator_id of the initiator's device), srpt
# listening through rdma_cm on SRP_CM_PORT.
srp_target_up() {
	local lun

	run modprobe brd rd_nr=1 rd_size=$((SRP_RAM_MIB * 1024)) || fail "modprobe brd"
	run modprobe target_core_iblock || fail "modprobe target_core_iblock"
	run modprobe ib_srpt || fail "modprobe ib_srpt"
	configfs_mount
	SRP_TARGET_UP=1
	[ -d "$SRP_TARGET/srpt" ] || mkdir "$SRP_TARGET/srpt" || fail "no srpt fabric in configfs"
	mkdir -p "$SRP_BACKSTORE" || fail "mkdir the iblock backstore"
	echo "udev_path=/dev/ram0" > "$SRP_BACKSTORE/control"
	echo 1 > "$SRP_BACKSTORE/enable" || fail "enable the iblock backstore on /dev/ram0"
	SRP_TPORT=$SRP_TARGET/srpt/0x$(srp_gid_hex "$RDMA_DEV")
	log "+ mkdir ${SRP_TPORT#"$SRP_TARGET"/}"
	mkdir "$SRP_TPORT" || fail "srpt has no port ${SRP_TPORT##*/} (is ib_srpt on $RDMA_DEV?)"
	SRP_TPG=$SRP_TPORT/tpg_1
	mkdir "$SRP_TPG"
	lun=$SRP_TPG/lun/lun_0
	mkdir "$lun"
	ln -s "$SRP_BACKSTORE" "$lun/srp_ram0" || fail "LUN 0 on the backstore"
	SRP_ACL=$SRP_TPG/acls/$1
	log "+ mkdir acls/$1"
	mkdir "$SRP_ACL" || fail "ACL for $1"
	mkdir "$SRP_ACL/lun_0"
	ln -s "$lun" "$SRP_ACL/lun_0/lun_0" || fail "map LUN 0 into the ACL"
	echo "$SRP_USE_SRQ" > "$SRP_TPG/attrib/use_srq" || fail "use_srq=$SRP_USE_SRQ"
	echo 1 > "$SRP_TPG/enable" || fail "enable the portal group"
	log "+ echo $SRP_CM_PORT > srpt/discovery_auth/rdma_cm_port"
	echo "$SRP_CM_PORT" > "$SRP_TARGET/srpt/discovery_auth/rdma_cm_port" ||
		fail "srpt could not listen on rdma_cm port $SRP_CM_PORT"
	log "srpt: LUN 0 = /dev/ram0 ($SRP_RAM_MIB MiB) on ${SRP_TPORT##*/}, ACL $1," \
		"service GUID $(srp_service_guid), use_srq $(cat "$SRP_TPG/attrib/use_srq")"
}

# srp_target_down: remove what srp_target_up made; quiet, and safe to call
# again or after a partial srp_target_up.
srp_target_down() {
	[ "$SRP_TARGET_UP" = 1 ] || return 0
	[ ! -e "$SRP_TARGET/srpt/discovery_auth/rdma_cm_port" ] ||
		echo 0 > "$SRP_TARGET/srpt/discovery_auth/rdma_cm_port"
	if [ -n "$SRP_TPG" ] && [ -d "$SRP_TPG" ]; then
		echo 0 > "$SRP_TPG/enable"
		rm -f "$SRP_ACL/lun_0/lun_0"
		[ ! -d "$SRP_ACL/lun_0" ] || rmdir "$SRP_ACL/lun_0"
		[ ! -d "$SRP_ACL" ] || rmdir "$SRP_ACL"
		rm -f "$SRP_TPG/lun/lun_0/srp_ram0"
		[ ! -d "$SRP_TPG/lun/lun_0" ] || rmdir "$SRP_TPG/lun/lun_0"
		rmdir "$SRP_TPG"
	fi
	[ -z "$SRP_TPORT" ] || [ ! -d "$SRP_TPORT" ] || rmdir "$SRP_TPORT"
	[ ! -d "$SRP_BACKSTORE" ] || rmdir "$SRP_BACKSTORE"
	[ ! -d "${SRP_BACKSTORE%/*}" ] || rmdir "${SRP_BACKSTORE%/*}"
	# The fabric's directory holds a reference to ib_srpt.
	[ ! -d "$SRP_TARGET/srpt" ] || rmdir "$SRP_TARGET/srpt"
	SRP_TARGET_UP=0 SRP_TPORT='' SRP_TPG='' SRP_ACL=''
	configfs_umount
	return 0
}

# --- initiator ----------------------------------------------------------------

# srp_hosts: the SCSI hosts ib_srp made, one a line (host2 ...).
srp_hosts() {
	local h

	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] && echo "${h##*/}"
	done
	return 0
}

# srp_host_disk HOST: the disk (sda ...) of LUN 0 under SCSI host HOST.
srp_host_disk() {
	local b

	for b in /sys/class/scsi_host/"$1"/device/target*/*:0/block/sd*; do
		[ -e "$b" ] && echo "${b##*/}" && return
	done
	return 0
}

srp_disk_ready() { [ -n "$(srp_host_disk "$1")" ] && [ -b "/dev/$(srp_host_disk "$1")" ]; }

# srp_is_srp_disk DISK: DISK (/dev/sdX) is LUN 0 of an ib_srp SCSI host on
# RDMA_DEV whose target is the srpt of this test (LIO's vendor string).
srp_is_srp_disk() {
	local name=${1#/dev/} path host vendor

	path=$(readlink -f "/sys/block/$name/device") || return 1
	[[ $path =~ /(host[0-9]+)/ ]] || { log "$1: no SCSI host in $path"; return 1; }
	host=${BASH_REMATCH[1]}
	[ "$(cat "/sys/class/scsi_host/$host/proc_name")" = ib_srp ] ||
		{ log "$1: $host is $(cat "/sys/class/scsi_host/$host/proc_name"), not ib_srp"; return 1; }
	[ "$(cat "/sys/class/scsi_host/$host/local_ib_device")" = "$RDMA_DEV" ] ||
		{ log "$1: $host is not on $RDMA_DEV"; return 1; }
	read -r vendor < "/sys/block/$name/device/vendor"	# blank-padded
	[ "$vendor" = LIO-ORG ] || { log "$1: vendor '$vendor', not LIO-ORG"; return 1; }
	log "$1: LUN 0 of $host (ib_srp on $RDMA_DEV), vendor LIO-ORG"
}

# srp_login ADDR GUID: add the target at ADDR:SRP_CM_PORT whose service
# GUID is GUID (srp_service_guid there) and wait for its disk.
srp_login() {
	local add=/sys/class/infiniband_srp/srp-$RDMA_DEV-1/add_target before h opts

	opts="id_ext=$2,ioc_guid=$2,dest=$1:$SRP_CM_PORT"
	run modprobe ib_srp || fail "modprobe ib_srp"
	# No udev in the guest: the SCSI disk driver would not be loaded.
	run modprobe sd_mod || fail "modprobe sd_mod"
	[ -e "$add" ] || fail "ib_srp made no $add"
	before=$(srp_hosts)
	log "+ echo $opts > $add"
	echo "$opts" > "$add" || fail "ib_srp could not log in to $1:$SRP_CM_PORT"
	for h in $(srp_hosts); do
		[[ " $before " == *" $h "* ]] || SRP_SHOST=$h
	done
	[ -n "$SRP_SHOST" ] || fail "no new ib_srp SCSI host after add_target"
	wait_for "$WAIT" srp_disk_ready "$SRP_SHOST" || fail "no disk appeared under $SRP_SHOST"
	SRP_DISK=/dev/$(srp_host_disk "$SRP_SHOST")
	log "logged in: $SRP_SHOST, disk $SRP_DISK ($(($(cat "/sys/block/${SRP_DISK#/dev/}/size") / 2048)) MiB)"
}

srp_host_gone() { [ ! -e "/sys/class/scsi_host/$1" ]; }

# srp_logout: delete the SCSI disk, then the SRP remote port (which
# removes the host) and wait until the host is gone.
srp_logout() {
	local rport

	[ -n "$SRP_SHOST" ] || return 0
	if [ -n "$SRP_DISK" ] && [ -e "/sys/block/${SRP_DISK#/dev/}/device/delete" ]; then
		log "+ echo 1 > /sys/block/${SRP_DISK#/dev/}/device/delete"
		echo 1 > "/sys/block/${SRP_DISK#/dev/}/device/delete"
	fi
	for rport in /sys/class/scsi_host/"$SRP_SHOST"/device/port-*/srp_remote_ports/port-*; do
		[ -e "$rport/delete" ] || continue
		log "+ echo 1 > ${rport#/sys/class/scsi_host/"$SRP_SHOST"/device/}/delete"
		echo 1 > "$rport/delete"
	done
	wait_for "$WAIT" srp_host_gone "$SRP_SHOST" || fail "$SRP_SHOST still there after remote port delete"
	log "$SRP_SHOST removed"
	SRP_SHOST='' SRP_DISK=''
}

# --- I/O ----------------------------------------------------------------------

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# srp_raw_verify OFFSET-MIB MIB: MIB MiB of random data written to SRP_DISK
# at OFFSET-MIB with O_DIRECT read back the same; SRP_RAW_SUM is its
# sha256.
srp_raw_verify() {
	head -c $(($2 << 20)) /dev/urandom > raw
	run dd if=raw of="$SRP_DISK" bs=64k seek=$(($1 * 16)) oflag=direct status=none ||
		fail "raw write to $SRP_DISK"
	run dd if="$SRP_DISK" of=raw.back bs=64k skip=$(($1 * 16)) count=$(($2 * 16)) iflag=direct \
		status=none || fail "raw read from $SRP_DISK"
	cmp raw raw.back || fail "raw read back from $SRP_DISK differs from what was written"
	log "raw: $2 MiB at $1 MiB written and read back through $SRP_DISK, byte-exact"
	SRP_RAW_SUM=$(sha256sum < raw | cut -d' ' -f1)
}

# ram_sum OFFSET-MIB MIB: sha256 of that region of the target's /dev/ram0.
ram_sum() {
	dd if=/dev/ram0 bs=64k skip=$(($1 * 16)) count=$(($2 * 16)) iflag=direct status=none |
		sha256sum | cut -d' ' -f1
}

srp_mount() {
	mkdir -p "$SRP_MNT"
	run mount "$SRP_DISK" "$SRP_MNT" || fail "mount $SRP_DISK"
	SRP_FS_MOUNTED=1
}

srp_umount() {
	run umount "$SRP_MNT" || fail "umount $SRP_MNT"
	SRP_FS_MOUNTED=0
}

# srp_fs_write MIB: ext4 on SRP_DISK, files of MIB MiB and of odd sizes
# written, unmounted; SRP_FS_SUMS holds their sha256s.
srp_fs_write() {
	run mkfs.ext4 -q -F -b 4096 "$SRP_DISK" || fail "mkfs.ext4 $SRP_DISK"
	srp_mount
	head -c $(($1 << 20)) /dev/urandom > "$SRP_MNT/data"
	head -c 12345 /dev/urandom > "$SRP_MNT/odd"
	head -c 4097 /dev/urandom > "$SRP_MNT/page-and-one"
	SRP_FS_SUMS=$(cd "$SRP_MNT" && sha256sum data odd page-and-one)
	srp_umount
	log "ext4 on $SRP_DISK: $1 MiB + 12345 + 4097 bytes written, unmounted"
}

# srp_fs_check: after dropping the caches, the files read back through a
# fresh mount have the sha256s written.
srp_fs_check() {
	drop_caches
	srp_mount
	(cd "$SRP_MNT" && sha256sum -c --quiet - <<< "$SRP_FS_SUMS") ||
		{ srp_umount; return 1; }
	srp_umount
	log "ext4 on $SRP_DISK: every file read back byte-exact after drop_caches"
}

# srp_data_block: the first data block of the file "data", in 4 KiB blocks
# from the start of the disk (SRP_DISK, unmounted).
srp_data_block() {
	debugfs -R "bmap /data 0" "$SRP_DISK" 2>/dev/null
}

# --- state --------------------------------------------------------------------

SRP_DMESG_MARK=0
srp_dmesg_mark() { SRP_DMESG_MARK=$(dmesg | wc -l); }

# srp_check_dmesg: no error from ib_srp, ib_srpt or the disk since the mark
# (their informational lines, e.g. srpt's login, are fine). srpt logs each
# receive that completes in error, and those its channel's QP flushes
# (status 5, IB_WC_WR_FLUSH_ERR) when the initiator logs out are expected;
# so is the unit attention a new disk may report at its first command
# (scsi_debug's does, on 6.1).
SRP_EXPECTED='ib_srpt receiving failed for ioctx [0-9a-f]+ with status 5$|sd [0-9:]+: Power-on or device reset occurred$'
srp_check_dmesg() {
	local bad

	bad=$(dmesg | tail -n +$((SRP_DMESG_MARK + 1)) | grep -E "$SRP_COMPLAINTS" |
		grep -iE 'error|fail|reject|timeout|abort|reset|warn' | grep -vE "$SRP_EXPECTED" || true)
	[ -z "$bad" ] || { echo "$bad"; fail "ib_srp, ib_srpt or the SCSI disk complained"; }
}

# srp_unload: the initiator's and the target's modules, those loaded.
srp_unload() {
	# shellcheck disable=SC2086 # one word a module
	rmmod_loaded $SRP_MODULES
}

# srp_cleanup: for trap EXIT. Never fails: the test's verdict stands.
srp_cleanup() {
	set +e
	[ "$SRP_FS_MOUNTED" = 0 ] || umount "$SRP_MNT"
	(srp_logout) > /dev/null 2>&1
	srp_target_down 2>/dev/null
	srp_unload > /dev/null 2>&1
	return 0
}
