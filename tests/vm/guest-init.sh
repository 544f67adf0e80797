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
# shellcheck source=tests/vm/peer.bash
. "$SROCE_TOP/tests/vm/peer.bash"

# Prefixed with the uptime, like the kernel lines around it.
# No program: under TCG each exec costs ~0.1-0.3 s and a shared boot says a lot.
say() {
	local up

	read -r up _ < /proc/uptime
	echo "vm: [$up] $*"
}

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

	rm -rf /root/work
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

# The console is shared with the kernel, and a kernel message printed
# while a marker line is half written breaks it (vm-run reads markers as
# whole lines: seen with 6.12's virtio_net watchdog warnings). The block of
# markers and kernel log at the end of a case goes out with the console
# loglevel at its minimum; what the kernel says meanwhile stays in dmesg.
console_quiet() {
	local rest

	read -r CONSOLE_LEVEL rest < /proc/sys/kernel/printk
	echo 1 > /proc/sys/kernel/printk
}

console_loud() {
	echo "${CONSOLE_LEVEL:-5}" > /proc/sys/kernel/printk
}

# ---- one script (vm-run SCRIPT) ----

run_single() {
	local rc

	say "running $SCRIPT ${ARGS[*]} on $(uname -r), host $SROCE_HOST ($SROCE_IP)"
	# vm-run tells splats before this line (boot) from those of the test.
	echo "sroce-vm: test starts" > /dev/kmsg
	run_script
	rc=$?
	say "script exited with $rc"
	console_quiet
	echo "SROCE-DMESG-BEGIN-$SROCE_NONCE"
	kmemleak_report
	dmesg
	echo "SROCE-DMESG-END-$SROCE_NONCE"
	echo "SROCE-EXIT-$SROCE_NONCE: $rc"
	console_loud
}

# ---- a group of cases in one boot (vm-run --group) ----
#
# Each case prints, on the console, the block a single run would: its
# output, a kernel-log section (dmesg -c: what the kernel said since the
# previous case, boot included for the first) and its exit marker, preceded
# by SROCE-CASE-<nonce>: NAME so that vm-run can cut the console into one log
# per case and judge each exactly like a single run. Between cases the guest
# is put back the way it booted; SROCE-CLEAN-<nonce>: says whether it was.
# Two hosts (SROCE_HOSTS=2) run the same cases and meet before each.

# What a case may change and the guest puts back, one "what: value" a line.
# The baseline is taken once before the first case; after each case the
# same snapshot must compare equal, or the case FAILs and the group stops.
# No `rdma` here: opening its netlink socket autoloads ib_core. Few
# programs: each one exec'd over 9p under TCG costs ~0.1-0.3 s.
# Modules in /proc/modules' order (stable for those loaded before a case).
guest_state() {
	local f q

	f=(/sys/class/infiniband/*)
	echo "rdma devices: ${f[*]##*/}"
	q=$(module_names)
	echo "modules: ${q//$'\n'/ }"
	f=(/sys/class/net/*)
	echo "netdevs: ${f[*]##*/}"
	echo "eth0: $(eth0_link)"
	echo "eth0 addresses: $(eth0_addresses)"
	q=$(tc qdisc show 2>&1)
	echo "qdiscs: ${q//$'\n'/ }"
	f=(/tmp/* /tmp/.[!.]* /var/tmp/* /var/tmp/.[!.]*)
	echo "temporary files: ${#f[@]}"
}

module_names() {
	local m

	while read -r m _; do echo "$m"; done < /proc/modules
}

# Up (IFF_UP in the flags) and MTU, from sysfs.
eth0_link() {
	local flags=0 mtu=''

	read -r flags < /sys/class/net/eth0/flags 2>/dev/null
	read -r mtu < /sys/class/net/eth0/mtu 2>/dev/null
	echo "up $((flags & 1)) mtu $mtu"
}

# "inet 198.18.0.1/24 ..." lines: family and address, in ip's order.
eth0_addresses() {
	local fam addr list='' out

	# A here-string, not <(...): the guest has no /dev/fd.
	out=$(ip -o addr show dev eth0 scope global 2>&1)
	while read -r _ _ fam addr _; do list+="$fam $addr "; done <<< "$out"
	echo "$list"
}

# Every process but PID 1 and kernel threads (children of kthreadd, PID 2):
# a case's daemons would keep its devices and modules busy. Waits until they
# are gone (or zombies): no deadline here, a process that never dies is a
# hang, which vm-run's deadline turns into this case's FAIL.
kill_leftovers() {
	local pids

	pids=$(user_pids)
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086 # one word a pid
	kill -KILL $pids 2>/dev/null
	while [ -n "$(user_pids)" ]; do sleep 0.1; done
}

# Live processes (not zombies) other than PID 1, this shell's own children
# of the moment, and kernel threads.
user_pids() {
	local p stat rest pid ppid state

	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[ "$pid" = 1 ] || [ "$pid" = 2 ] && continue
		read -r stat < "$p/stat" 2>/dev/null || continue
		rest=${stat##*) }
		read -r state ppid _ <<< "$rest"
		[ "$ppid" = 2 ] || [ "$state" = Z ] || [ "$ppid" = "$BASHPID" ] ||
			[ "$pid" = "$BASHPID" ] || echo "$pid"
	done
}

# Modules loaded since boot, newest first (/proc/modules' order, which is
# also an order rmmod accepts: a module comes before those it uses).
new_modules() {
	local m

	while read -r m _; do
		[[ $'\n'$BASE_MODULES$'\n' == *$'\n'$m$'\n'* ]] || echo "$m"
	done < /proc/modules
}

# Unload what the case loaded; unloading a driver removes its RDMA devices
# and netdevs too. Again while a pass unloads something (a reference may
# drop only once another module is gone); what stays is reported.
unload_new_modules() {
	local new left

	new=$(new_modules)
	while [ -n "$new" ]; do
		# shellcheck disable=SC2086 # one word a module
		rmmod $new 2>/dev/null
		left=$(new_modules)
		[ "$left" != "$new" ] || break
		new=$left
	done
}

# Put the guest back the way guest_state saw it at boot; touch only what
# differs (see guest_state on the cost of a program).
restore_guest() {
	local d t

	kill_leftovers
	unload_new_modules
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] && rdma link delete "${d##*/}" 2>/dev/null
	done
	for d in /sys/class/net/*; do
		d=${d##*/}
		[[ $'\n'$BASE_NETDEVS$'\n' == *$'\n'$d$'\n'* ]] || ip link delete "$d" 2>/dev/null
	done
	# Before the second unload: a qdisc holds its sch_*/cls_* modules.
	if [ "$(tc qdisc show 2>&1)" != "$BASE_QDISCS" ]; then
		for d in $BASE_NETDEVS; do
			tc qdisc del dev "$d" root 2>/dev/null
			tc qdisc del dev "$d" ingress 2>/dev/null
		done
	fi
	unload_new_modules
	[ "$(eth0_link)" = "$BASE_LINK" ] || ip link set eth0 mtu 1500 up 2>/dev/null
	if [ "$(eth0_addresses)" != "$BASE_ADDRESSES" ]; then
		ip addr flush dev eth0 scope global 2>/dev/null
		ip addr add "$SROCE_IP/24" dev eth0 2>/dev/null
	fi
	# -xdev: the repository may be bind-mounted under /tmp (init's keep_top_visible).
	t=(/tmp/* /tmp/.[!.]* /var/tmp/* /var/tmp/.[!.]*)
	[ ${#t[@]} = 0 ] || find /tmp /var/tmp -xdev -mindepth 1 -delete 2>/dev/null
}

# Restore the guest if it is not as it booted, then set CLEAN to "ok" or
# the lines of guest_state that still differ from boot. Not in a subshell:
# kill_leftovers would take it for a leftover process.
clean_up() {
	local now i diff=''
	local -a was is

	CLEAN=''

	now=$(guest_state)
	if [ "$now" != "$BASE_STATE" ]; then
		restore_guest
		now=$(guest_state)
	fi
	[ "$now" = "$BASE_STATE" ] && { CLEAN=ok; return; }
	mapfile -t was <<< "$BASE_STATE"
	mapfile -t is <<< "$now"
	for i in "${!is[@]}"; do
		[ "${is[i]}" = "${was[i]:-}" ] || diff+="${is[i]};"
	done
	CLEAN=${diff:-the state differs from boot}
}

# run_case NAME PATH TIMEOUT: one case, its cleanup, its console block.
# Returns 1 if the guest could not be put back.
run_case() {
	local name=$1 rc

	SCRIPT=$2 ARGS=() SROCE_GUEST_TIMEOUT=$3
	console_quiet
	echo "SROCE-CASE-$SROCE_NONCE: $name"
	console_loud
	say "running case $name ($SCRIPT) on $(uname -r)"
	echo "sroce-vm: test starts: $name" > /dev/kmsg
	run_script
	rc=$?
	say "script exited with $rc"
	clean_up
	CLEAN=${CLEAN:0:300}
	say "cleanup: $CLEAN"
	console_quiet
	echo "SROCE-DMESG-BEGIN-$SROCE_NONCE"
	kmemleak_report
	dmesg -c
	echo "SROCE-DMESG-END-$SROCE_NONCE"
	echo "SROCE-CLEAN-$SROCE_NONCE: $CLEAN"
	echo "SROCE-EXIT-$SROCE_NONCE: $rc"
	console_loud
	kmemleak_reset
	[ "$CLEAN" = ok ]
}

# peer_meet K NAME SECONDS: two hosts start case K together, each once its
# own cleanup is done: they swap NAME on TCP port 19000+K (lib.sh's
# peer_exchange uses 20000+). Fails if the peer has not come within SECONDS
# or came to another case.
peer_meet() {
	if ! peer_swap $((19000 + $1)) "$2" "$3"; then
		say "$PEER_ERROR"
		return 1
	fi
	[ "$PEER_LINE" = "$2" ] || { say "peer met at case '$PEER_LINE', not $2"; return 1; }
}

# The kernel's crypto RNG (drbg, ansi_cprng and their hashes, and the
# jitter entropy source with its sha3) is loaded on first use, under
# wire-capture-loopback's tshark for one, and cannot be unloaded after:
# load it before the baseline, so a case that uses it changes nothing.
load_unremovable() {
	modprobe -q -a crypto-stdrng crypto-jitterentropy_rng 2> /dev/null
}

run_group() {
	local i

	shopt -s nullglob
	load_unremovable
	BASE_STATE=$(guest_state)
	BASE_MODULES=$(module_names)
	BASE_NETDEVS=$(cd /sys/class/net && printf '%s\n' *)
	BASE_LINK=$(eth0_link) BASE_ADDRESSES=$(eth0_addresses) BASE_QDISCS=$(tc qdisc show 2>&1)
	for i in "${!CASES[@]}"; do
		if [ "$SROCE_HOSTS" = 2 ] && ! peer_meet "$i" "${CASE_NAMES[i]}" "${CASE_TIMEOUTS[i]}"; then
			say "the peer did not come to ${CASE_NAMES[i]}: the other cases do not run here"
			break
		fi
		if ! run_case "${CASE_NAMES[i]}" "${CASES[i]}" "${CASE_TIMEOUTS[i]}"; then
			say "the guest is not clean after ${CASE_NAMES[i]}: the other cases do not run here"
			break
		fi
	done
}

main() {
	mount_misc
	setup_modules
	say "modules ready"
	setup_net
	say "network ready"
	kmemleak_reset
	export SROCE_TOP SROCE_KO SROCE_HOST SROCE_IP SROCE_PEER_IP RDMAV_DRIVERS SROCE_VM_FULL
	export HOME=/root TERM=dumb
	if [ -n "${CASES+set}" ]; then
		run_group
	else
		run_single
	fi
	# The UART may still hold the marker: powering off now could drop it.
	sleep 0.3
	# No systemd to ask: busybox (a dependency of the harness) calls reboot(2).
	/bin/busybox poweroff -f || echo o > /proc/sysrq-trigger
}

main
