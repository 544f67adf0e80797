# SPDX-License-Identifier: GPL-2.0
#
# iSCSI Extensions for RDMA (iSER) for tests/vm/tests/*iser*.sh, sourced
# after lib.sh and lib-rdma.bash inside the guest:
#   . "$SROCE_TOP/tests/vm/lib-iser.bash"
#   trap iser_cleanup EXIT
#
# Target: LIO configured through targetcli (targetcli-fb), a brd ramdisk
# (/dev/ram0, ISER_RAM_MIB) as the block backstore of LUN 0 of ISER_IQN,
# whose portal ADDR:3260 has iSER enabled (ib_isert listens there through
# rdma_cm; the TCP listener stays). Initiator: open-iscsi's iscsid and
# iscsiadm through the iface ISER_IFACE (iser: ib_iser). The guest's /etc is
# the host's, read-only: /etc/iscsi (iscsid.conf, the initiator name, the
# node records) is a copy of this test's, bind-mounted over it.
#
# iser_cleanup undoes whatever of this the test did, in reverse, also
# after a failure half-way: a shared boot's next test must find no
# session, no daemon, no LIO object and no mount.
#
# Named .bash, not .sh, so that run-suite.sh never takes it for a test.

ISER_IQN=${ISER_IQN:-iqn.2026-12.test.sroce:$TEST_NAME}
ISER_PORT=3260
ISER_RAM_MIB=${ISER_RAM_MIB:-16}
# The iface iscsiadm logs in through: iser, or "default" (TCP) to show
# that the transport check fails.
ISER_IFACE=${ISER_IFACE:-iser}
ISER_WORK=$PWD
ISER_ETC=$ISER_WORK/etc-iscsi
ISER_MNT=$ISER_WORK/mnt
TREE_SRC=$ISER_WORK/src
# shellcheck source=tests/vm/lib-tree.bash
. "$SROCE_TOP/tests/vm/lib-tree.bash"
ISER_LIO=/sys/kernel/config/target
ISER_TPG=$ISER_LIO/iscsi/$ISER_IQN/tpgt_1
ISER_TARGET_UP=0 ISER_MOUNTED_CONFIGFS=0 ISER_ETC_BOUND=0 ISER_ISCSID_PID=''
ISER_LOGGED_IN=0 ISER_DISK='' ISER_SESSION='' ISER_DMESG_MARK=0
# What the kernel must not say while iSER runs (iser_check_dmesg).
ISER_COMPLAINTS='iser.*(error|fail|ERROR)|isert.*(error|fail)|iSCSI.*(error|fail|timed out)|connection[0-9:]* error|I/O error|EXT4-fs error'

# --- target -------------------------------------------------------------------

# iser_targetcli COMMAND...: one targetcli session running the commands (one
# a line, from standard input as a script would), with its preferences and
# log in this test's directory. Exit status and output do not tell whether
# a command failed: the callers check configfs. targetcli (2.1.53) asks the
# system D-Bus for tcmu-runner's backstores and dies when there is none, as
# in the guest: it gets a private bus of its own (dbus-run-session) as its
# system bus.
iser_targetcli() {
	local out=targetcli.out rc=0

	log "+ targetcli <<< '$(printf '%s; ' "$@")'"
	# shellcheck disable=SC2016 # expanded by sh -c
	printf '%s\n' "$@" exit | TARGETCLI_HOME=$ISER_WORK/targetcli dbus-run-session -- \
		sh -c 'DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS exec targetcli' \
		> "$out" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { cat "$out"; fail "targetcli exited with status $rc"; }
	grep -iE 'error|no such|cannot|fail' "$out" || true
}

# iser_target_up ADDR: LUN 0 of ISER_IQN on /dev/ram0, portal ADDR:3260
# with iSER, any initiator welcome (demo mode: no ACL, no CHAP).
iser_target_up() {
	local np=$ISER_TPG/np/$1:$ISER_PORT

	run modprobe brd rd_nr=1 rd_size=$((ISER_RAM_MIB * 1024)) || fail "modprobe brd"
	run modprobe ib_isert || fail "modprobe ib_isert"
	# configfs is a module on Debian: the guest could not mount it at boot.
	if ! grep -q " /sys/kernel/config configfs " /proc/mounts; then
		run mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
		ISER_MOUNTED_CONFIGFS=1
	fi
	ISER_TARGET_UP=1
	iser_targetcli \
		"set global auto_save_on_exit=false auto_add_default_portal=false" \
		"/backstores/block create name=ram0 dev=/dev/ram0" \
		"/iscsi create $ISER_IQN" \
		"/iscsi/$ISER_IQN/tpg1/luns create /backstores/block/ram0" \
		"/iscsi/$ISER_IQN/tpg1/portals create $1 $ISER_PORT" \
		"/iscsi/$ISER_IQN/tpg1/portals/$1:$ISER_PORT enable_iser boolean=true" \
		"/iscsi/$ISER_IQN/tpg1 set attribute authentication=0 generate_node_acls=1 demo_mode_write_protect=0"
	[ -d "$ISER_TPG/lun/lun_0" ] || { cat targetcli.out; fail "targetcli made no LUN 0 for $ISER_IQN"; }
	[ "$(cat "$ISER_TPG/enable")" = 1 ] || fail "$ISER_IQN's TPG 1 is not enabled"
	[ "$(cat "$np/iser" 2>/dev/null)" = 1 ] ||
		{ cat targetcli.out; fail "portal $1:$ISER_PORT has no iSER (ib_isert could not listen on ${RDMA_DEV:-the RDMA device})"; }
	log "target $ISER_IQN: LUN 0 on /dev/ram0 ($ISER_RAM_MIB MiB), portal $1:$ISER_PORT with iSER"
}

# iser_target_down: remove what iser_target_up made, straight through
# configfs in the order targetcli's clearconfig takes (it would cost another
# 10-15 s of Python under TCG): TPG disabled, LUN, portal (iSER off first),
# TPG, target, the iscsi fabric's directory (it holds iscsi_target_mod),
# the backstore and its HBA. Quiet, and safe to call again or after a
# partial iser_target_up.
iser_target_down() {
	local d

	[ "$ISER_TARGET_UP" = 1 ] || return 0
	if [ -d "$ISER_TPG" ]; then
		echo 0 > "$ISER_TPG/enable"
		for d in "$ISER_TPG"/lun/lun_*; do
			[ -d "$d" ] || continue
			find "$d" -maxdepth 1 -type l -delete
			rmdir "$d"
		done
		for d in "$ISER_TPG"/np/*; do
			[ -d "$d" ] || continue
			echo 0 > "$d/iser"
			rmdir "$d"
		done
		rmdir "$ISER_TPG"
	fi
	[ ! -d "$ISER_LIO/iscsi/$ISER_IQN" ] || rmdir "$ISER_LIO/iscsi/$ISER_IQN"
	[ ! -d "$ISER_LIO/iscsi" ] || rmdir "$ISER_LIO/iscsi"
	for d in "$ISER_LIO"/core/iblock_*; do
		[ ! -d "$d/ram0" ] || { rmdir "$d/ram0" && rmdir "$d"; }
	done
	ISER_TARGET_UP=0
	[ ! -d "$ISER_LIO/iscsi/$ISER_IQN" ] || fail "could not remove $ISER_IQN from configfs"
	! compgen -G "$ISER_LIO/core/iblock_*/ram0" > /dev/null ||
		fail "could not remove the backstore ram0 from configfs"
	if [ "$ISER_MOUNTED_CONFIGFS" = 1 ]; then
		umount /sys/kernel/config && ISER_MOUNTED_CONFIGFS=0
	fi
	rm -f /run/targetcli.lock
	log "target $ISER_IQN and its backstore removed"
}

# --- initiator ----------------------------------------------------------------

# iser_iscsid_up: iscsid in the foreground of a background job, on a
# writable copy of /etc/iscsi with an initiator name of this host.
iser_iscsid_up() {
	run modprobe ib_iser || fail "modprobe ib_iser"
	# The SCSI disk driver: no udev here to load it for the new LUN.
	run modprobe sd_mod || fail "modprobe sd_mod"
	mkdir -p "$ISER_ETC" /run/lock/iscsi
	# iscsiadm would run this to start iscsid through systemd.
	sed 's|^iscsid.startup = .*|iscsid.startup = /bin/true|' /etc/iscsi/iscsid.conf \
		> "$ISER_ETC/iscsid.conf"
	echo "InitiatorName=iqn.2026-12.test.sroce:initiator$SROCE_HOST" > "$ISER_ETC/initiatorname.iscsi"
	run mount --bind "$ISER_ETC" /etc/iscsi || fail "bind-mount $ISER_ETC on /etc/iscsi"
	ISER_ETC_BOUND=1
	# In a session of its own: iscsid signals its process group as it stops.
	log "+ setsid iscsid -f > iscsid.out &"
	setsid iscsid -f > iscsid.out 2>&1 &
	ISER_ISCSID_PID=$!
	wait_for "$WAIT" eval "ss -xl | grep -q ISCSIADM_ABSTRACT_NAMESPACE" ||
		{ cat iscsid.out; fail "iscsid did not listen for iscsiadm"; }
}

# iser_discover ADDR: sendtargets discovery at ADDR through ISER_IFACE
# lists ISER_IQN.
iser_discover() {
	local out=discovery.out

	run iscsiadm -m discovery -t st -p "$1:$ISER_PORT" -I "$ISER_IFACE" > "$out" 2>&1 ||
		{ cat "$out"; fail "discovery at $1 through iface $ISER_IFACE failed"; }
	cat "$out"
	grep -qE "^$1:$ISER_PORT,1 $ISER_IQN\$" "$out" || fail "discovery at $1 does not list $ISER_IQN"
}

# The session ISER_IQN has, e.g. session1, or nothing.
iser_session_of_target() {
	local s

	for s in /sys/class/iscsi_session/session*; do
		[ -e "$s/targetname" ] && [ "$(cat "$s/targetname")" = "$ISER_IQN" ] &&
			basename "$s" && return
	done
	return 0
}

# The disk of LUN 0 of ISER_SESSION, e.g. sda, or nothing.
iser_disk_name() {
	local b

	for b in "/sys/class/iscsi_session/$ISER_SESSION/device"/target*/*:0/block/*; do
		[ -b "/dev/${b##*/}" ] && basename "$b" && return
	done
	return 0
}

iser_disk_ready() { [ -n "$(iser_disk_name)" ]; }

# iser_login ADDR: log in to ISER_IQN at ADDR through ISER_IFACE; then
# ISER_SESSION and ISER_DISK (LUN 0, e.g. /dev/sda).
iser_login() {
	local out=login.out

	run iscsiadm -m node -T "$ISER_IQN" -p "$1:$ISER_PORT" -I "$ISER_IFACE" --login > "$out" 2>&1 ||
		{ cat "$out"; fail "login to $ISER_IQN at $1 failed"; }
	cat "$out"
	ISER_LOGGED_IN=1
	ISER_SESSION=$(iser_session_of_target)
	[ -n "$ISER_SESSION" ] || fail "no iSCSI session to $ISER_IQN after the login"
	wait_for "$WAIT" iser_disk_ready || fail "no disk for LUN 0 of $ISER_SESSION"
	ISER_DISK=/dev/$(iser_disk_name)
	log "$ISER_SESSION: LUN 0 is $ISER_DISK"
}

# iser_expect_transport: the session runs over iSER, by what iscsiadm says
# of it and by the SCSI host's driver (iscsi_iser, not iscsi_tcp).
iser_expect_transport() {
	local out=session.out transport host driver

	run iscsiadm -m session -P 1 > "$out" 2>&1 || { cat "$out"; fail "iscsiadm -m session failed"; }
	cat "$out"
	transport=$(sed -n 's/^[[:space:]]*Iface Transport:[[:space:]]*//p' "$out" | head -n 1)
	[ "$transport" = iser ] || fail "the session's transport is '$transport' (iscsiadm), not iser"
	host=$(basename "$(dirname "$(readlink -f "/sys/class/iscsi_session/$ISER_SESSION/device")")")
	driver=$(cat "/sys/class/scsi_host/$host/proc_name")
	[ "$driver" = iscsi_iser ] || fail "$ISER_SESSION's SCSI host $host is driven by '$driver', not iscsi_iser"
	log "$ISER_SESSION: transport $transport, $host driven by $driver"
}

# iser_expect_connected MODULE...: each MODULE (ib_iser, ib_isert) has a
# connected rdma_cm ID on RDMA_DEV (restrack names a kernel ID's owner by
# its module; the QPs it made through rdma_cm count as rdma_cm's), and
# RDMA_DEV holds RC QPs in RTS.
iser_expect_connected() {
	local ids qps m

	ids=$(rdma res show cm_id link "$RDMA_DEV/1")
	qps=$(rdma res show qp link "$RDMA_DEV/1")
	for m in "$@"; do
		grep -E "state CONNECT .*comm \\[$m\\]" <<< "$ids" > /dev/null ||
			{ echo "$ids"; fail "$m has no connected rdma_cm ID on $RDMA_DEV"; }
	done
	grep -qE 'type RC state RTS ' <<< "$qps" || { echo "$qps"; fail "no RC QP in RTS on $RDMA_DEV"; }
	log "$RDMA_DEV: connected rdma_cm IDs of $*, RC QPs in RTS:"
	echo "$ids"
}

iser_no_session() { [ -z "$(iser_session_of_target)" ]; }

# iser_logout: log out of ISER_IQN and forget its node record.
iser_logout() {
	[ "$ISER_LOGGED_IN" = 1 ] || return 0
	run iscsiadm -m node -T "$ISER_IQN" --logout || fail "logout from $ISER_IQN failed"
	ISER_LOGGED_IN=0 ISER_SESSION='' ISER_DISK=''
	wait_for "$WAIT" iser_no_session || fail "a session to $ISER_IQN is left after the logout"
}

# iser_iscsid_down: iscsid and the bind mount gone; quiet, safe to repeat.
iser_iscsid_down() {
	if [ -n "$ISER_ISCSID_PID" ]; then
		kill "$ISER_ISCSID_PID" 2>/dev/null
		wait "$ISER_ISCSID_PID" 2>/dev/null
		ISER_ISCSID_PID=''
	fi
	if [ "$ISER_ETC_BOUND" = 1 ]; then
		umount /etc/iscsi && ISER_ETC_BOUND=0
	fi
	return 0
}

# --- I/O ----------------------------------------------------------------------

# iser_ram_region OFFSET_MIB MIB: that part of the target's ramdisk, read
# past any page cache of /dev/ram0.
iser_ram_region() {
	dd if=/dev/ram0 bs=1M skip="$1" count="$2" iflag=direct status=none
}

# iser_disk_region OFFSET_MIB MIB: that part of ISER_DISK, read with
# O_DIRECT: from the target, not from the initiator's page cache.
iser_disk_region() {
	dd if="$ISER_DISK" bs=64k skip=$(($1 * 16)) count=$(($2 * 16)) iflag=direct status=none
}

# The raw region's check, in steps for the initiator (i) and the target
# (t), which are one host or two. (i) iser_raw_write OFFSET_MIB MIB: random
# data there with O_DIRECT (raw.pattern), RAW_DIGEST its sha256.
iser_raw_write() {
	head -c $(($2 << 20)) /dev/urandom > raw.pattern
	run dd if=raw.pattern of="$ISER_DISK" bs=64k seek=$(($1 * 16)) oflag=direct status=none ||
		fail "write to $ISER_DISK"
	RAW_DIGEST=$(sha256sum < raw.pattern | cut -d' ' -f1)
}

# (t) iser_raw_on_target OFFSET_MIB MIB DIGEST: the ramdisk holds it.
iser_raw_on_target() {
	[ "$(iser_ram_region "$1" "$2" | sha256sum | cut -d' ' -f1)" = "$3" ] ||
		fail "the target's ramdisk does not hold what was written to the disk at $1 MiB"
	log "the target's ramdisk holds the $2 MiB written at $1 MiB, byte for byte"
}

# (i) iser_raw_read_back OFFSET_MIB MIB: the disk reads back raw.pattern.
iser_raw_read_back() {
	iser_disk_region "$1" "$2" | cmp - raw.pattern ||
		fail "what $ISER_DISK reads back differs from what was written"
	log "$2 MiB at $1 MiB of $ISER_DISK read back byte-exact"
}

# (t) iser_raw_tamper OFFSET_MIB: change a byte in the region's second page
# on the ramdisk, behind the initiator's back (raw.block keeps the page).
iser_raw_tamper() {
	local page=$((($1 << 8) + 1)) byte

	dd if=/dev/ram0 of=raw.block bs=4k skip=$page count=1 iflag=direct status=none
	byte=$(od -An -tu1 -j 1 -N 1 raw.block)
	cp raw.block raw.tampered
	# shellcheck disable=SC2059 # the format is the byte's octal escape
	printf "\\$(printf %03o $((byte ^ 0xff)))" |
		dd of=raw.tampered bs=1 seek=1 conv=notrunc status=none
	dd if=raw.tampered of=/dev/ram0 bs=4k seek=$page oflag=direct status=none ||
		fail "could not change the target's ramdisk"
	log "byte 4097 of the region at $1 MiB changed on the target's ramdisk"
}

# (t) iser_raw_restore OFFSET_MIB: the page iser_raw_tamper changed, as it was.
iser_raw_restore() {
	dd if=raw.block of=/dev/ram0 bs=4k seek=$((($1 << 8) + 1)) oflag=direct status=none ||
		fail "could not restore the target's ramdisk"
}

# (i) iser_raw_sees_tamper OFFSET_MIB MIB: what the disk reads now differs
# from raw.pattern: the reads come from the target, and the compare can fail.
iser_raw_sees_tamper() {
	! iser_disk_region "$1" "$2" | cmp -s - raw.pattern ||
		fail "$ISER_DISK reads the old data after a byte of the target's ramdisk changed"
	log "the byte changed on the target's ramdisk shows on $ISER_DISK"
}

# iser_raw_verify OFFSET_MIB MIB: all of the above on one host.
iser_raw_verify() {
	iser_raw_write "$1" "$2"
	iser_raw_on_target "$1" "$2" "$RAW_DIGEST"
	iser_raw_read_back "$1" "$2"
	iser_raw_tamper "$1"
	iser_raw_sees_tamper "$1" "$2"
	iser_raw_restore "$1"
	iser_raw_read_back "$1" "$2"
}

# iser_fs_verify FS_MIB: an ext4 filesystem on the first FS_MIB MiB of
# ISER_DISK; the tree copied onto it, unmounted, the caches dropped,
# mounted again: the tree must read back byte for byte.
iser_fs_verify() {
	run mkfs.ext4 -q -F "$ISER_DISK" "$(($1 << 10))k" || fail "mkfs.ext4 on $ISER_DISK"
	mkdir -p "$ISER_MNT"
	run mount -t ext4 "$ISER_DISK" "$ISER_MNT" || fail "mount $ISER_DISK"
	run cp -a "$TREE_SRC" "$ISER_MNT/tree" || fail "copy the tree onto $ISER_DISK"
	run umount "$ISER_MNT" || fail "umount $ISER_MNT"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	run mount -t ext4 -o ro "$ISER_DISK" "$ISER_MNT" || fail "mount $ISER_DISK again"
	expect_tree "$ISER_MNT/tree" "$TREE_DIGEST" "ext4 on $ISER_DISK after a remount"
	run umount "$ISER_MNT" || fail "umount $ISER_MNT"
}

# --- state --------------------------------------------------------------------

iser_dmesg_mark() { ISER_DMESG_MARK=$(dmesg | wc -l); }

# iser_check_dmesg: no ISER_COMPLAINTS line in the kernel log since the mark.
iser_check_dmesg() {
	local bad

	bad=$(dmesg | tail -n +$((ISER_DMESG_MARK + 1)) | grep -E "$ISER_COMPLAINTS" || true)
	[ -z "$bad" ] || { echo "$bad"; fail "ib_iser, ib_isert or the SCSI layer complained"; }
}

# iser_unload: ib_iser and ib_isert must unload once the session and the
# target are gone (a reference left on a connection would keep them).
iser_unload() {
	local m

	for m in ib_iser ib_isert; do
		[ ! -d "/sys/module/$m" ] || run rmmod "$m" || fail "rmmod $m failed"
	done
}

# iser_cleanup: for trap EXIT. Never fails: the test's verdict stands.
iser_cleanup() {
	set +e
	! grep -q " $ISER_MNT " /proc/mounts || umount "$ISER_MNT"
	if [ -n "$(iser_session_of_target)" ]; then
		iscsiadm -m node -T "$ISER_IQN" --logout > /dev/null 2>&1
		wait_for "$WAIT" iser_no_session
	fi
	iser_iscsid_down
	(iser_target_down) > /dev/null 2>&1
	ISER_TARGET_UP=0
	iser_unload > /dev/null 2>&1
	return 0
}
