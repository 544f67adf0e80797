#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 240
#
# NVMe over Fabrics on sroce, one guest: an nvmet-rdma target (configfs)
# exporting a brd ramdisk on eth0's address, and the kernel's nvme-rdma
# host connected to it through /dev/nvme-fabrics (what `nvme connect -t
# rdma` writes). 1 MiB of random data goes to the namespace with O_DIRECT,
# must be on the target's ramdisk byte for byte, and must read back the
# same; then disconnect and take the target down. nvme-rdma refuses a
# device without fast registration (IB_DEVICE_MEM_MGT_EXTENSIONS), and
# every I/O uses it: REG_MR of the host's pages, the target's READ or
# WRITE through that key, then its SEND with invalidate (or the host's
# LOCAL_INV). With "rxe" as argument the same runs on rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

NQN=nqn.2026-12.test.sroce:nvmeof-loopback
CFG=/sys/kernel/config/nvmet
PORT=4420
MIB=1

# The controller the host made for $NQN, e.g. nvme0, or nothing.
host_ctrl() {
	local c

	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] && [ "$(cat "$c/subsysnqn")" = "$NQN" ] &&
			basename "$c" && return
	done
}

target_up() {
	run modprobe brd rd_nr=1 rd_size=$((4 * 1024)) || fail "modprobe brd"
	run modprobe nvmet-rdma || fail "modprobe nvmet-rdma"
	# configfs is a module on Debian: the guest could not mount it at boot.
	if ! grep -q " /sys/kernel/config configfs " /proc/mounts; then
		run mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
		MOUNTED_CONFIGFS=1
	fi
	[ -d "$CFG" ] || fail "no $CFG (configfs)"
	mkdir "$CFG/subsystems/$NQN" || fail "mkdir subsystem"
	echo 1 > "$CFG/subsystems/$NQN/attr_allow_any_host"
	mkdir "$CFG/subsystems/$NQN/namespaces/1"
	echo -n /dev/ram0 > "$CFG/subsystems/$NQN/namespaces/1/device_path"
	echo 1 > "$CFG/subsystems/$NQN/namespaces/1/enable" ||
		fail "namespace enable"
	mkdir "$CFG/ports/1"
	echo rdma > "$CFG/ports/1/addr_trtype"
	echo ipv4 > "$CFG/ports/1/addr_adrfam"
	echo "$SROCE_IP" > "$CFG/ports/1/addr_traddr"
	echo "$PORT" > "$CFG/ports/1/addr_trsvcid"
	ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN" ||
		fail "port enable (nvmet-rdma could not listen on $RDMA_DEV)"
}

target_down() {
	rm -f "$CFG/ports/1/subsystems/$NQN"
	rmdir "$CFG/ports/1" 2>/dev/null
	[ -d "$CFG/subsystems/$NQN" ] || return 0
	echo 0 > "$CFG/subsystems/$NQN/namespaces/1/enable"
	rmdir "$CFG/subsystems/$NQN/namespaces/1"
	rmdir "$CFG/subsystems/$NQN"
}

host_connect() {
	local dev i

	run modprobe nvme-rdma || fail "modprobe nvme-rdma"
	log "+ connect transport=rdma,traddr=$SROCE_IP,trsvcid=$PORT,nqn=$NQN"
	echo "transport=rdma,traddr=$SROCE_IP,trsvcid=$PORT,nqn=$NQN" \
		> /dev/nvme-fabrics || fail "nvme-rdma could not connect"
	CTRL=$(host_ctrl)
	[ -n "$CTRL" ] || fail "no controller for $NQN"
	# The guest has no other NVMe device; with native multipath the disk
	# is named after the subsystem, not the controller.
	for i in $(seq 50); do
		dev=$(ls /sys/block | grep -E '^nvme[0-9]+n1$' | head -1)
		[ -n "$dev" ] && [ -b "/dev/$dev" ] && break
		dev=
		sleep 0.2
	done
	[ -n "$dev" ] || fail "no namespace block device for $CTRL"
	NS=/dev/$dev
	log "connected: $CTRL, namespace $NS ($(cat "/sys/class/nvme/$CTRL/transport"))"
}

host_disconnect() {
	[ -n "${CTRL:-}" ] && [ -e "/sys/class/nvme/$CTRL/delete_controller" ] &&
		echo 1 > "/sys/class/nvme/$CTRL/delete_controller"
	CTRL=
}

MOUNTED_CONFIGFS=

# The mount must not outlive the test (shared boot).
configfs_down() {
	[ -n "$MOUNTED_CONFIGFS" ] && umount /sys/kernel/config
	MOUNTED_CONFIGFS=
}

cleanup() {
	host_disconnect
	target_down
	configfs_down
}
trap cleanup EXIT

dmesg -c > /dev/null
rdma_setup "${1:-}"
target_up
host_connect

head -c $((MIB << 20)) /dev/urandom > pattern
run dd if=pattern of="$NS" bs=64k oflag=direct status=none || fail "write to $NS"
cmp -n $((MIB << 20)) pattern /dev/ram0 || fail "the target's ramdisk does not hold what was written"
run dd if="$NS" of=readback bs=64k count=$((MIB * 16)) iflag=direct status=none ||
	fail "read from $NS"
cmp pattern readback || fail "read back differs from what was written"
log "$MIB MiB written and read back over nvme-rdma, byte-exact"

host_disconnect
for i in $(seq 50); do [ -z "$(host_ctrl)" ] && break; sleep 0.2; done
[ -z "$(host_ctrl)" ] || fail "controller still there after delete_controller"
target_down
configfs_down
trap - EXIT
if dmesg | grep -E "nvme.*(error|failed|Bogus|timeout)|nvmet.*(error|failed)"; then
	fail "nvme-rdma or nvmet-rdma complained"
fi
run rmmod nvme-rdma nvme-fabrics nvmet-rdma nvmet brd
rdma_teardown
