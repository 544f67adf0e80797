#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Bad input: UDP port 4791 already taken. `rdma link add` must fail with
# EADDRINUSE and leave no device, whether an ordinary IPv4 socket, an
# IPv6-only socket (sroce's second bind fails after its first succeeded:
# the first must be given back) or rdma_rxe holds the port; once the holder
# is gone the same command works.
. "$SROCE_TOP/tests/vm/lib.sh"

HOLDER_PID=

# hold_port FAMILY: a process keeps UDP 4791 bound (inet or inet6, V6ONLY).
hold_port() {
	python3 -c '
import socket, sys, time
fam = socket.AF_INET if sys.argv[1] == "inet" else socket.AF_INET6
s = socket.socket(fam, socket.SOCK_DGRAM)
if fam == socket.AF_INET6:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s.bind(("0.0.0.0" if fam == socket.AF_INET else "::", 4791))
print("bound", flush=True)
time.sleep(600)' "$1" > /tmp/holder.out 2>&1 &
	HOLDER_PID=$!
	wait_for "$WAIT" grep -q bound /tmp/holder.out || fail "could not bind UDP 4791 ($1): $(cat /tmp/holder.out)"
	log "a $1 socket holds UDP 4791"
}

release_port() {
	kill "$HOLDER_PID"
	wait "$HOLDER_PID" 2> /dev/null || true
	rm -f /tmp/holder.out
}

# add_refused: rdma link add fails saying the address is in use.
add_refused() {
	local out

	expect_rejected rdma link add sroce0 type sroce netdev eth0
	out=$(rdma link add sroce0 type sroce netdev eth0 2>&1) && fail "second add succeeded: $out"
	grep -qi 'address already in use' <<< "$out" || fail "rdma link add said '$out', not EADDRINUSE"
	ibdev_exists sroce0 && fail "sroce0 exists after a refused add"
	log "refused: $out"
}

# add_works: the port is free again: the device comes and goes.
add_works() {
	sroce_add sroce0 eth0
	sroce_del sroce0
}

sroce_load
for family in inet inet6; do
	hold_port "$family"
	add_refused
	release_port
	add_works
done

modprobe crc32_generic 2> /dev/null || true
modprobe rdma_rxe || fail "cannot load rdma_rxe"
log "rdma_rxe loaded: it binds UDP 4791"
add_refused
rmmod rdma_rxe
add_works
log "EADDRINUSE each time, the port's release lets the device come"
