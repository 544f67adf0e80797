#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flood RoCEv2 ACKs at whichever QP number a command last printed.

  qpn_flood.py CMD...

Runs CMD (e.g. sroce_qp_churn), reads its stdout, and for every "qpn=N"
line re-aims the flood at QP N; other lines are copied to our stdout. The
ACKs (valid ICRC, default P_Key) leave through an ordinary UDP socket on
[::1], so no raw socket is needed: the IPv6 and UDP header fields the ICRC
covers are all known to the sender (IPv4 would not do: the kernel picks the
IP ID). Stops when CMD's stdout closes; exits with CMD's status and prints
"sent N" on stderr.
"""
import socket
import struct
import subprocess
import sys
import threading
import time

from rocev2 import ROCEV2_PORT, icrc_of

ACKNOWLEDGE = 0x11
PKEY = 0xFFFF
AETH_ACK = 0x1F << 24           # ACK, credits invalid, MSN 0


def ack_payload(sport, qpn, psn=0):
    """BTH + AETH + ICRC of an ACK from [::1]:sport to [::1]:4791."""
    transport = struct.pack(">BBHII", ACKNOWLEDGE, 0, PKEY, qpn & 0xFFFFFF,
                            psn & 0xFFFFFF) + struct.pack(">I", AETH_ACK)
    udp_len = 8 + len(transport) + 4
    loopback = socket.inet_pton(socket.AF_INET6, "::1")
    ip6 = struct.pack(">IHBB", 6 << 28, udp_len, socket.IPPROTO_UDP, 64)
    udp = struct.pack(">HHHH", sport, ROCEV2_PORT, udp_len, 0)
    icrc = icrc_of(ip6 + loopback + loopback + udp + transport)
    return transport + struct.pack("<I", icrc)


class Target:
    """The QP number to aim at, set by the reader thread."""

    def __init__(self):
        self.qpn = None
        self.done = False


def read_qpns(pipe, target):
    for line in pipe:
        if line.startswith("qpn="):
            target.qpn = int(line[4:])
        else:
            sys.stdout.write(line)
            sys.stdout.flush()
    target.done = True


def flood(target):
    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sock.bind(("::1", 0))
    sport = sock.getsockname()[1]
    sent, aimed, payload = 0, None, b""
    while not target.done:
        qpn = target.qpn
        if qpn is None:
            time.sleep(0.001)
            continue
        if qpn != aimed:
            aimed, payload = qpn, ack_payload(sport, qpn)
        sock.sendto(payload, ("::1", ROCEV2_PORT))
        sent += 1
    return sent


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, text=True)
    target = Target()
    reader = threading.Thread(target=read_qpns, args=(cmd.stdout, target))
    reader.start()
    sent = flood(target)
    reader.join()
    print(f"sent {sent}", file=sys.stderr)
    sys.exit(cmd.wait())


if __name__ == "__main__":
    main()
