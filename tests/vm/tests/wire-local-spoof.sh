#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 120
#
# A QP whose peer is a QP of this host gets its packets through the
# loopback short-cut, never through the UDP socket: a packet for it that
# comes through the socket from this host's address (any local process with
# a raw socket can make one) is dropped and counted in rcvd_unknown_qpn.
# With the short-cut off, the same packet is the peer's own path and is
# taken, which shows that the packet itself is valid.
#
#   sroce_rc_target (QP connected to itself, 198.18.0.1)
#        ^  loopback short-cut: its own packets
#        |
#   raw socket, src = dst = 198.18.0.1, UDP 4791: SEND ONLY at its ePSN
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

TARGET=$SROCE_TOP/build/verbs/sroce_rc_target
PSN=0x100
SHORTCUT=/sys/module/sroce/parameters/loopback_shortcut

[ -x "$TARGET" ] || fail "$TARGET not built (make -C tests/verbs O=\$PWD/build/verbs)"
rdma_setup sroce
hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters

mkfifo /tmp/target.in
"$TARGET" "$RDMA_DEV" "$GID_INDEX" "$SROCE_IP" self "$PSN" 1024 \
	< /tmp/target.in > /tmp/target.out 2>&1 &
exec 3> /tmp/target.in		# keeps the target's stdin open
wait_for 10 grep -q '^qpn=' /tmp/target.out || { cat /tmp/target.out; fail "target did not start"; }
qpn=$(sed -n 's/^qpn=\([0-9]*\) .*/\1/p' /tmp/target.out)
log "target QP $qpn, connected to itself"

# spoof PSN: one SEND ONLY of 32 bytes to the target from this host's address.
spoof() {
	PYTHONPATH=$SROCE_TOP/tests/tools python3 - "$SROCE_IP" "$qpn" "$1" <<'PY'
import socket, struct, sys
from rocev2 import ROCEV2_PORT, with_icrc
ip, qpn, psn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 0)
transport = struct.pack(">BBHII", 0x04, 0, 0xFFFF, qpn, 0x80000000 | psn) + bytes(32)
udp = struct.pack(">HHHH", 0xC0DE, ROCEV2_PORT, 8 + len(transport) + 4, 0)
hdr = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(transport) + 4, 1,
                  0x4000, 64, 17, 0, socket.inet_aton(ip), socket.inet_aton(ip))
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
s.sendto(with_icrc(hdr + udp + transport), (ip, 0))
PY
}

received() { grep -q "^wc status=0 opcode=128 len=32" /tmp/target.out; }

before=$(cat "$hw/rcvd_unknown_qpn")
run spoof "$PSN"
sleep 1
if received; then
	cat /tmp/target.out
	fail "a socket packet for a QP whose peer is local was taken"
fi
after=$(cat "$hw/rcvd_unknown_qpn")
[ $((after - before)) = 1 ] || fail "rcvd_unknown_qpn moved by $((after - before)), expected 1"
log "dropped with the short-cut on: rcvd_unknown_qpn +1"

echo 0 > "$SHORTCUT"
run spoof "$PSN"
wait_for 5 received || { cat /tmp/target.out; echo 1 > "$SHORTCUT"; fail "with the short-cut off the same packet was not taken"; }
echo 1 > "$SHORTCUT"
log "taken with the short-cut off (the packet is valid)"
exec 3>&-
wait
