#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: the guest boots the requested kernel, the environment
# vm-run promises is there, and /lib/modules is writable with sroce indexed.
. "$SROCE_TOP/tests/vm/lib.sh"

run uname -r
for v in SROCE_TOP SROCE_KO RDMAV_DRIVERS SROCE_HOST SROCE_IP SROCE_PEER_IP; do
	[ -n "${!v:-}" ] || fail "$v not set"
	log "$v=${!v}"
done
[ "$(id -u)" = 0 ] || fail "not root"
touch ./writable || fail "cwd $PWD not writable"
touch "/lib/modules/$(uname -r)/probe" || fail "/lib/modules not writable"
ip -br addr show eth0 | grep -qF "$SROCE_IP/24" || fail "eth0 lacks $SROCE_IP"
ip -br link show eth0 | grep -q UP || fail "eth0 not up"
[ "$(readlink -f "$(command -v ip)")" != /bin/busybox ] || fail "ip is busybox"
run modprobe ib_core
grep -q '^ib_core' /proc/modules || [ -d /sys/module/ib_core ] || fail "ib_core not loaded"
if [ -f "/lib/modules/$(uname -r)/updates/sroce.ko" ]; then
	modprobe -R rdma-link-sroce | grep -qx sroce || fail "alias rdma-link-sroce not indexed"
fi
log ok
