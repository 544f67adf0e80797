#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 300
#
# A kernel ULP loses its sroce device under I/O, and gets it back. An
# nvmet-rdma target and an nvme-rdma host on one sroce device (as
# nvmeof-loopback.sh), connected, fio writing at queue depth 16. Then the
# device goes away three ways, each while the ULPs hold it:
#   delete     `rdma link delete sroce0`
#   netdev     the netdev under it is unregistered (a veth pair deleted)
#   rmmod      `rmmod sroce`
# ib_core tells both ULPs to let go (nvme-rdma deletes the controllers
# on the device, nvmet-rdma its queues and its listener): the removal
# must return, the controller and the device must be gone, fio must end
# (its I/O errors are expected: the disk went away), and no kernel
# warning may be printed (the harness checks each case's log). After each
# the device is made again on the same netdev, the target's port listens
# again, and a new connection carries verified I/O - nothing of the old
# one was left behind to stop it.
#
# Argument: [sroce|rxe] (rxe: the same on rdma_rxe, for comparison).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
. "$SROCE_TOP/tests/vm/lib-nvmeof.bash"

PROVIDER=${1:-sroce}
NVMF_RAM_MIB=8
# The veth pair of the netdev case, inside 198.18.0.0/15.
VETH_IP=198.19.7.1

veth_up() {
	run ip link add vsr0 type veth peer name vsr1 || fail "ip link add veth"
	run ip addr add "$VETH_IP/24" dev vsr0
	run ip link set vsr0 up
	run ip link set vsr1 up
}

# device_up NETDEV: (re)make RDMA_DEV on NETDEV.
device_up() {
	case "$PROVIDER" in
	sroce) sroce_add sroce0 "$1"; RDMA_DEV=sroce0 ;;
	rxe) run rdma link add rxe0 type rxe netdev "$1" || fail "rdma link add rxe0"
	     wait_for "$WAIT" ibdev_exists rxe0 || fail "rxe0 did not appear"
	     RDMA_DEV=rxe0 ;;
	esac
}

# driver_up: the provider's module, loaded if it is not.
driver_up() {
	case "$PROVIDER" in
	sroce) sroce_loaded || sroce_load ;;
	rxe) run modprobe rdma_rxe || fail "modprobe rdma_rxe" ;;
	esac
}

# connected ADDR: a controller to ADDR, fio writing on it.
connected() {
	nvmf_connect_raw "$1"
	nvmf_fio_start fio.out --eta=never --direct=1 --rw=randwrite --bs=4k \
		--name=writer --ioengine=libaio --iodepth=16 --time_based --runtime=120 \
		--size=$((NVMF_RAM_MIB / 2))M
	wait_for "$WAIT" writes_done || fail "fio's first writes did not complete"
}

fio_ended() { ! kill -0 "$NVMF_FIO_PID" 2> /dev/null; }
writes_done() { [ "$(nvmf_path_stat 5)" -gt 0 ]; }

# removed WHAT CMD...: CMD takes the device away under the ULPs; it must
# return, and the controller, the device and fio must be gone.
removed() {
	local what=$1 rc=0

	shift
	log "$what: + $*"
	timeout 60 "$@" || rc=$?
	[ "$rc" = 0 ] || fail "$what: '$*' failed or hung (status $rc)"
	# rdma_rxe first reports the port down: nvme-rdma tries to reconnect,
	# and deletes the controller only at the device's removal, ~20 s later.
	wait_for 60 nvmf_ctrl_gone ||
		fail "$what: controller $NVMF_CTRL still there ($(nvmf_ctrl_state))"
	! ibdev_exists "$RDMA_DEV" || fail "$what: $RDMA_DEV still there"
	wait_for 60 fio_ended || fail "$what: fio still running without its disk"
	wait "$NVMF_FIO_PID" 2> /dev/null || true	# its I/O errors are expected
	NVMF_FIO_PID='' NVMF_CTRL='' NVMF_NS=''
	log "$what: device, controller and I/O gone"
}

# back ADDR: the port listens on ADDR again (nvmet-rdma dropped its
# listener with the device; it listens when a subsystem is linked), and a
# new connection carries verified I/O.
back() {
	nvmf_port_unlink
	echo "$1" > "$NVMF_PORT_DIR/addr_traddr"
	nvmf_port_link
	nvmf_connect_raw "$1"
	nvmf_fio_start fio.out "${NVMF_FIO_COMMON[@]}" "${NVMF_FIO_AIO[@]}" --size=2M
	nvmf_fio_finish fio.out
	log "a new connection to $1: 2 MiB written and verified"
	nvmf_disconnect
}

cleanup() {
	nvmf_cleanup
	ip link delete vsr0 2> /dev/null
	return 0
}

trap cleanup EXIT
[ "$PROVIDER" = sroce ] || [ "$PROVIDER" = rxe ] || fail "unknown provider '$PROVIDER'"
[ "$PROVIDER" = sroce ] && require_provider
driver_up
device_up eth0
nvmf_target_up "$SROCE_IP"

connected "$SROCE_IP"
removed delete rdma link delete "$RDMA_DEV"
device_up eth0
back "$SROCE_IP"

sroce_del "$RDMA_DEV"	# lib.sh's delete and wait, whatever the provider
veth_up
device_up vsr0
expect_gid "$RDMA_DEV" "::ffff:$VETH_IP" "RoCE v2" 10
back "$VETH_IP"
connected "$VETH_IP"
removed netdev ip link delete vsr0
veth_up
device_up vsr0
back "$VETH_IP"
run ip link delete vsr0
wait_for "$WAIT" eval "! ibdev_exists $RDMA_DEV" || fail "$RDMA_DEV outlived its netdev"

device_up eth0
back "$SROCE_IP"
connected "$SROCE_IP"
if [ "$PROVIDER" = sroce ]; then
	removed rmmod rmmod sroce
else
	removed rmmod rmmod rdma_rxe
fi
driver_up
device_up eth0
back "$SROCE_IP"

nvmf_target_down
trap - EXIT
nvmf_unload
rdma_teardown
