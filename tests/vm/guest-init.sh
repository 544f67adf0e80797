#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-init.sh JOB - stage 2 of a vm-run guest, chrooted into the host's
# read-only root. JOB (written by vm-run, read over 9p) sets the SROCE_*
# variables, SCRIPT and ARGS. Prepares modules and network, runs the script
# with a deadline, then prints the kernel log and the exit marker that vm-run
# reads back from the console, and powers off. This runs as PID 1.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck source=/dev/null
. "$1"

# Prefixed with the uptime, like the kernel lines around it.
say() { echo "vm: [$(cut -d" " -f1 /proc/uptime)] $*"; }

mount_misc() {
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
}

# /lib/modules becomes an overlay with a tmpfs upper holding updates/sroce.ko
# and the indexes vm-run had depmod compute with it on the host (SROCE_MODDIR;
# depmod -a here would take ~30 s): plain modprobe and the rdma-link-sroce
# autoload then work as on an installed system. On the debug kernel the
# indexes include modules.builtin, so built-in ib_core & co count as loaded.
setup_modules() {
	local rel ovl=/run/sroce/modules

	rel=$(uname -r)
	grep -qw overlay /proc/filesystems || modprobe overlay
	mkdir -p $ovl/upper $ovl/work
	mount -t overlay overlay \
		-o "lowerdir=/lib/modules,upperdir=$ovl/upper,workdir=$ovl/work" /lib/modules ||
		say "cannot overlay /lib/modules"
	mkdir -p "/lib/modules/$rel"
	cp -a "$SROCE_MODDIR"/. "/lib/modules/$rel/" || say "cannot install $SROCE_MODDIR"
	[ -f "/lib/modules/$rel/updates/sroce.ko" ] ||
		say "module $SROCE_KO not built; modprobe sroce will fail"
}

# eth0 exists as soon as virtio_net probes (no udev here; net.ifnames=0).
setup_net() {
	local i

	grep -q '^virtio_net ' /proc/modules || modprobe -q virtio_net
	for ((i = 0; i < 50; i++)); do
		[ -e /sys/class/net/eth0 ] && break
		sleep 0.1
	done
	hostname "sroce-host$SROCE_HOST"
	ip link set lo up
	ip link set eth0 up || say "no eth0"
	ip addr add "$SROCE_IP/24" dev eth0
}

# kmemleak (debug kernel): forget what boot leaked so only the test counts.
kmemleak_reset() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	echo scan > /sys/kernel/debug/kmemleak
	echo clear > /sys/kernel/debug/kmemleak
}

# Objects younger than 5 s are never reported, hence the wait.
kmemleak_report() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
}

run_script() {
	local rc

	mkdir -p /root/work
	cd /root/work || return 1
	if [ -x "$SCRIPT" ]; then
		timeout -k 5 "$SROCE_GUEST_TIMEOUT" "$SCRIPT" "${ARGS[@]}" < /dev/null
	else
		timeout -k 5 "$SROCE_GUEST_TIMEOUT" bash "$SCRIPT" "${ARGS[@]}" < /dev/null
	fi
	rc=$?
	cd / || true
	return $rc
}

main() {
	local rc

	mount_misc
	setup_modules
	say "modules ready"
	setup_net
	say "network ready"
	kmemleak_reset
	export SROCE_TOP SROCE_KO SROCE_HOST SROCE_IP SROCE_PEER_IP RDMAV_DRIVERS
	export HOME=/root TERM=dumb
	say "running $SCRIPT ${ARGS[*]} on $(uname -r), host $SROCE_HOST ($SROCE_IP)"
	# vm-run tells splats before this line (boot) from those of the test.
	echo "sroce-vm: test starts" > /dev/kmsg
	run_script
	rc=$?
	say "script exited with $rc"
	echo "SROCE-DMESG-BEGIN-$SROCE_NONCE"
	kmemleak_report
	dmesg
	echo "SROCE-DMESG-END-$SROCE_NONCE"
	echo "SROCE-EXIT-$SROCE_NONCE: $rc"
	# The UART may still hold the marker: powering off now could drop it.
	sleep 0.3
	# No systemd to ask: busybox (a dependency of the harness) calls reboot(2).
	/bin/busybox poweroff -f || echo o > /proc/sysrq-trigger
}

main
