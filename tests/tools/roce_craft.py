#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hand-crafted RoCEv2 packets against a live RC QP, and the reaction each
must get (Documentation/wire-protocol.md, "Receive checks").

Two roles, on two hosts of one link:

  roce_craft.py agent --port P --target CMD...
      on the host under test: runs the target (tests/verbs/rc_target.c:
      one RC QP in RTS whose peer is the crafter) and answers the
      crafter's questions over TCP, one line each way:
        new PSN [MTU]  start a fresh target expecting PSN (path MTU, default
                   1024) -> its "qpn=.." line
        newud      start a fresh UD target (--ud-target: tests/verbs/ud_target.c,
                   a UD QP in RTS with Q_Key UD_QKEY) -> its "qpn=.." line
        newuc PSN RECVS  the target with a UC QP and RECVS receives posted
        post       the target posts one more receive -> "posted"
        counters   JSON of /sys/class/infiniband/DEV/ports/1/hw_counters
        state      the QP state (enum ibv_qp_state)
        dereg      ibv_dereg_mr of the target's MR -> its return value, or
                   "timeout" if it did not return within 10 s
        read LEN   the target posts an RDMA READ of LEN bytes to the crafter
                   -> ibv_post_send's return value
        reconnect  the target's QP goes through RESET and is connected again
                   as at the start, expecting the first PSN -> "reconnected"
        wcs        JSON list of the completions since the last ask
        bye        stop

  roce_craft.py craft --agent HOST:PORT --src IP --dst IP
      on the other host, where nothing owns UDP 4791: for each row of CASES
      sends the packets through a raw IP socket (so it controls every byte
      the ICRC covers), collects what comes back on UDP 4791 (a raw socket,
      so the replies' ICRCs are verified too), compares the reply and the
      counter deltas with the row, then sends one valid SEND and checks that
      the QP survived (ACK and a completion) or did not (no answer, QP in
      ERROR) as the row says. Prints one "ok"/"not ok" line per row.
"""
import argparse
import collections
import json
import os
import queue
import shlex
import socket
import struct
import subprocess
import sys
import threading
import time

from rocev2 import ROCEV2_PORT, icrc_of, with_icrc

CRAFTER_QPN = 0x00C0DE
FIRST_PSN = 0x000100
MTU = 1024
PKEY = 0xFFFF
REPLY_WAIT = 3.0          # seconds for an answer that must come
SILENCE_WAIT = 0.5        # seconds of silence that count as "no answer"
COUNTER_CACHE_LIFESPAN = 0.1
QPS_RTS, QPS_ERR = 3, 6
IBV_WC_RECV = 128

# BTH opcodes (RC unless said)
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY = 0x00, 0x01, 0x02, 0x04
WRITE_FIRST, WRITE_MIDDLE = 0x06, 0x07
WRITE_ONLY, READ_REQUEST, READ_RESPONSE_ONLY = 0x0A, 0x0C, 0x10
ACKNOWLEDGE, FETCH_ADD, UD_SEND_ONLY, UD_SEND_ONLY_IMM = 0x11, 0x14, 0x64, 0x65
ATOMIC_ACKNOWLEDGE = 0x12
UD_QKEY, GRH_BYTES = 0x11110000, 40
RC_RESERVED, SEND_ONLY_INV = 0x1F, 0x17

# AETH syndromes (IBA vol. 1 9.7.5.1.5 / table 44)
NAK_SEQ, NAK_INVALID, NAK_ACCESS = 0x60, 0x61, 0x62
ACK_CREDITS_INVALID = 0x1F
READ_RESPONSE_FIRST, READ_RESPONSE_LAST = 0x0D, 0x0F
IBV_WC_SUCCESS, IBV_WC_BAD_RESP_ERR, IBV_WC_RDMA_READ = 0, 7, 2


# --- the agent (host under test) -------------------------------------------

class Agent:
    def __init__(self, target_cmd, ud_cmd, dev):
        self.cmd, self.ud_cmd, self.dev, self.proc = target_cmd, ud_cmd, dev, None
        self.lines = queue.Queue()

    def _reader(self, proc):
        for line in proc.stdout:
            self.lines.put(line.strip())

    def new(self, psn, mtu=MTU):
        return self._start([a.replace("{psn}", str(psn)).replace("{mtu}", str(mtu))
                            for a in self.cmd])

    def new_ud(self):
        return self._start(self.ud_cmd)

    def new_uc(self, psn, recvs):
        return self._start([a.replace("{psn}", str(psn)).replace("{mtu}", str(MTU))
                            for a in self.cmd] + ["uc", str(recvs)])

    def post(self):
        self.proc.stdin.write("post\n")
        self.proc.stdin.flush()
        self._wait_line("posted")
        return "posted"

    def _start(self, cmd):
        self.stop()
        self.lines = queue.Queue()
        self.proc = subprocess.Popen(cmd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self._reader, args=(self.proc,), daemon=True).start()
        return self.lines.get(timeout=30)

    def stop(self):
        if self.proc:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
            self.proc = None

    def counters(self):
        # ib_core serves hw_counters from a cache refreshed at most every
        # "lifespan" (10 ms): let a packet just answered reach the numbers.
        time.sleep(COUNTER_CACHE_LIFESPAN)
        d = f"/sys/class/infiniband/{self.dev}/ports/1/hw_counters"
        out = {}
        for name in os.listdir(d) if os.path.isdir(d) else []:
            try:
                with open(os.path.join(d, name)) as f:
                    out[name] = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        return json.dumps(out)

    def state(self):
        self.proc.stdin.write("state\n")
        self.proc.stdin.flush()
        return self._wait_line("state=")

    def reconnect(self):
        self.proc.stdin.write("reconnect\n")
        self.proc.stdin.flush()
        self._wait_line("reconnected")
        return "reconnected"

    def read(self, length):
        self.proc.stdin.write(f"read {length}\n")
        self.proc.stdin.flush()
        return self._wait_line("read=")

    def dereg(self):
        self.proc.stdin.write("dereg\n")
        self.proc.stdin.flush()
        try:
            return self._wait_line("dereg=")
        except (TimeoutError, queue.Empty):
            return "timeout"

    def _wait_line(self, prefix):
        skipped = []
        deadline = time.time() + 10
        while time.time() < deadline:
            line = self.lines.get(timeout=max(0.1, deadline - time.time()))
            if line.startswith(prefix):
                for s in skipped:
                    self.lines.put(s)
                return line[len(prefix):]
            skipped.append(line)
        raise TimeoutError(prefix)

    def wcs(self):
        out = []
        while not self.lines.empty():
            out.append(self.lines.get())
        return json.dumps(out)


def run_agent(args):
    agent = Agent(args.target, shlex.split(args.ud_target), args.dev)
    srv = socket.create_server(("0.0.0.0", args.port))
    conn, _ = srv.accept()
    f = conn.makefile("rw")
    for line in f:
        word, _, arg = line.strip().partition(" ")
        if word == "bye":
            break
        reply = {"new": lambda: agent.new(*map(int, arg.split())), "newud": agent.new_ud,
                 "newuc": lambda: agent.new_uc(*map(int, arg.split())), "post": agent.post,
                 "counters": agent.counters,
                 "state": agent.state, "wcs": agent.wcs,
                 "dereg": agent.dereg, "read": lambda: agent.read(int(arg)),
                 "reconnect": agent.reconnect}[word]()
        f.write(reply + "\n")
        f.flush()
    agent.stop()
    return 0


# --- packets -------------------------------------------------------------------

class Crafter:
    def __init__(self, args):
        self.src, self.dst = args.src, args.dst
        self.ip_id = 1
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
        # Owning the port keeps the kernel from answering with ICMP.
        self.sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sink.bind(("0.0.0.0", ROCEV2_PORT))
        self.sink.setblocking(False)
        host, port = args.agent.rsplit(":", 1)
        self.ctl = socket.create_connection((host, int(port)), timeout=60).makefile("rw")
        self.replies_checked = 0

    def ask(self, line):
        self.ctl.write(line + "\n")
        self.ctl.flush()
        return self.ctl.readline().strip()

    def ipv4(self, transport, src=None):
        """IPv4 + UDP headers around @transport (BTH .. ICRC excluded)."""
        udp = struct.pack(">HHHH", 0xC0DE, ROCEV2_PORT, 8 + len(transport) + 4, 0)
        self.ip_id = (self.ip_id + 1) & 0xFFFF or 1
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(transport) + 4,
                         self.ip_id, 0x4000, 64, 17, 0,
                         socket.inet_aton(src or self.src), socket.inet_aton(self.dst))
        return ip + udp + transport

    def send(self, pkt):
        self.tx.sendto(pkt, (self.dst, 0))

    def replies(self, expected):
        """RoCEv2 packets from the target, from the BTH on, each one's ICRC
        checked on the way: until @expected have come (or REPLY_WAIT is
        over), or for SILENCE_WAIT when none is expected."""
        out = []
        deadline = time.time() + (REPLY_WAIT if expected else SILENCE_WAIT)
        self.rx.settimeout(0.05)
        while time.time() < deadline and (not expected or len(out) < expected):
            try:
                ip = self.rx.recv(65535)
            except socket.timeout:
                continue
            ihl = (ip[0] & 0xF) * 4
            if ip[12:16] != socket.inet_aton(self.dst) or \
               struct.unpack_from(">H", ip, ihl + 2)[0] != ROCEV2_PORT:
                continue
            if icrc_of(ip[:-4]) != struct.unpack("<I", ip[-4:])[0]:
                raise AssertionError("a reply from the target has a bad ICRC")
            self.replies_checked += 1
            out.append(ip[ihl + 8:-4])
        try:
            while self.sink.recv(65535):
                pass
        except BlockingIOError:
            pass
        return out


def bth(opcode, qpn, psn, pad=0, pkey=PKEY, tver=0, ack_req=True):
    return struct.pack(">BBHII", opcode, (pad & 3) << 4 | tver, pkey, qpn & 0xFFFFFF,
                       (0x80000000 if ack_req else 0) | psn & 0xFFFFFF)


def reth(va, rkey, length):
    return struct.pack(">QII", va, rkey, length)


def payload_of(n):
    return bytes((i * 7 + 1) & 0xFF for i in range(n))


def padded(data, pad=None):
    pad = (-len(data) & 3) if pad is None else pad
    return data + b"\0" * (-len(data) & 3), pad


class Ctx:
    """What a row needs to know about the target."""

    def __init__(self, crafter, info, mtu=MTU):
        self.c, self.mtu = crafter, mtu
        kv = dict(x.split("=") for x in info.split())
        self.qpn, self.rkey = int(kv["qpn"]), int(kv["rkey"])
        self.addr, self.len = int(kv["addr"]), int(kv["len"])
        self.psn = FIRST_PSN

    def pkt(self, opcode, data=b"", ext=b"", psn=None, qpn=None, pad=None,
            pkey=PKEY, tver=0, src=None, icrc_xor=0, raw_body=None, ack_req=True):
        body, pad = padded(data, pad) if raw_body is None else (raw_body, pad or 0)
        transport = bth(opcode, self.qpn if qpn is None else qpn,
                        self.psn if psn is None else psn, pad, pkey, tver,
                        ack_req) + ext + body
        whole = with_icrc(self.c.ipv4(transport, src))
        if icrc_xor:
            whole = whole[:-4] + struct.pack("<I", struct.unpack("<I", whole[-4:])[0] ^ icrc_xor)
        return whole

    def ask(self, line):
        return self.c.ask(line)

    def send_only(self, n=64, **kw):
        return self.pkt(SEND_ONLY, payload_of(n), **kw)


def write_first_then_dereg(x):
    """WRITE FIRST to the MR (its ACK proves the target took it), then the
    target deregisters that MR mid-message: the call must return although
    the WRITE never finishes, and the WRITE MIDDLE that follows finds no MR."""
    x.c.send(x.pkt(WRITE_FIRST, payload_of(MTU), reth(x.addr, x.rkey, 3 * MTU)))
    err = reply_problem(x, ("ack", 0), x.c.replies(1), x.psn)
    if err:
        raise AssertionError("WRITE FIRST: " + err)
    ret = x.ask("dereg")
    if ret != "0":
        raise AssertionError(f"ibv_dereg_mr during the WRITE returned {ret}")
    yield x.pkt(WRITE_MIDDLE, payload_of(MTU), psn=x.psn + 1)


def read_then_duplicate(dup_reth):
    """A WRITE and a READ of it (both answered), then a duplicate of the
    READ at its PSN whose RETH is dup_reth(ctx, the READ's address)."""
    def packets(x):
        addr = x.addr + 4096
        x.c.send(x.pkt(WRITE_ONLY, payload_of(200), reth(addr, x.rkey, 200)))
        x.c.send(x.pkt(READ_REQUEST, ext=reth(addr, x.rkey, 200), psn=x.psn + 1))
        err = reply_problem(x, ("read", 1), x.c.replies(2), x.psn)
        if err:
            raise AssertionError("the original READ: " + err)
        yield x.pkt(READ_REQUEST, ext=dup_reth(x, addr), psn=x.psn + 1)
    return packets


def atomic_then_duplicate(dup):
    """A FETCH_ADD (answered), then at its PSN the packet dup(ctx, its
    address) builds: the same request again or something else."""
    def packets(x):
        addr = x.addr + 8192
        x.c.send(x.pkt(FETCH_ADD, ext=atomic_eth(addr, x.rkey, 5)))
        err = reply_problem(x, ("atomic", 0), x.c.replies(1), x.psn)
        if err:
            raise AssertionError("the original FETCH_ADD: " + err)
        yield dup(x, addr)
    return packets


def atomic_eth(addr, rkey, add, compare=0):
    return struct.pack(">QIQQ", addr, rkey, add, compare)


def send_after_reset(x):
    """A SEND (ACKed), then the target's QP through RESET and connected again:
    a new connection, whose first SEND the row's reply checks."""
    x.c.send(x.send_only(32))
    if not x.c.replies(1):
        raise AssertionError("no ACK for the SEND before the reset")
    if x.ask("reconnect") != "reconnected":
        raise AssertionError("the target did not reconnect")
    x.psn = FIRST_PSN
    yield x.send_only(32)


# --- the table -------------------------------------------------------------------

# A row: what is sent (packets(ctx) -> list of IP packets), the IBA sections
# that say what must happen, the reply (DROP: none at all; ("ack", n): ACK of
# PSN ePSN+n; ("dup", n): an ACK; ("msn", m): an ACK carrying MSN m; ("read", n): the bytes back in a READ
# RESPONSE ONLY of PSN ePSN+n; ("reread", n): the same as the only reply; ("atomic", n): an ATOMIC
# ACKNOWLEDGE of PSN ePSN+n; ("nak", syndrome[, n]): that NAK for PSN
# ePSN+n, n = 0 unless given), the
# counters that must move by exactly one, whether the QP must still work, and
# how many PSNs the row uses up; optionally the target's path MTU.
Case = collections.namedtuple("Case", "name spec packets reply counters survives psns mtu",
                              defaults=(MTU,))
DROP = None
CASES = [Case(*row) for row in [
    ("valid SEND ONLY", "9.7.4.1.2",
     lambda x: [x.send_only()], ("ack", 0), ["rcvd_pkts"], True, 1),
    ("valid WRITE then READ back", "9.7.4.1.3, 9.7.4.1.4",
     lambda x: [x.pkt(WRITE_ONLY, payload_of(200), reth(x.addr + 4096, x.rkey, 200)),
                x.pkt(READ_REQUEST, ext=reth(x.addr + 4096, x.rkey, 200), psn=x.psn + 1)],
     ("read", 1), [], True, 2),
    ("bad ICRC", "A17.8.1, 7.8.1",
     lambda x: [x.send_only(icrc_xor=1)], DROP, ["icrc_errors"], True, 0),
    ("unknown destination QP", "9.6.1.1",
     lambda x: [x.send_only(qpn=0xABCDEF)], DROP, ["rcvd_unknown_qpn"], True, 0),
    ("source address is not the QP's peer", "9.6.1.1",
     lambda x: [x.send_only(src="198.18.0.77")], DROP, ["rcvd_unknown_qpn"], True, 0),
    ("P_Key mismatch", "9.6.1.1, 10.9.3",
     lambda x: [x.send_only(pkey=0x1234)], DROP, ["rcvd_bad_pkey"], True, 0),
    ("BTH transport version 1", "9.6.1.1",
     lambda x: [x.send_only(tver=1)], DROP, ["rcvd_malformed"], True, 0),
    ("truncated RETH (WRITE ONLY with 8 of 16 bytes)", "9.6.1.1",
     lambda x: [x.pkt(WRITE_ONLY, raw_body=struct.pack(">Q", x.addr))], DROP,
     ["rcvd_malformed"], True, 0),
    ("truncated BTH (8 bytes)", "9.2",
     lambda x: [with_icrc(x.c.ipv4(bth(SEND_ONLY, x.qpn, x.psn)[:8]))],
     DROP, ["rcvd_malformed"], True, 0),
    ("payload + pad not a multiple of 4", "9.2.6",
     lambda x: [x.pkt(SEND_ONLY, raw_body=payload_of(5), pad=0)], DROP,
     ["rcvd_malformed"], True, 0),
    ("pad count larger than the payload", "9.2.6",
     lambda x: [x.pkt(SEND_ONLY, raw_body=b"", pad=3)], DROP, ["rcvd_malformed"], True, 0),
    ("UD opcode to an RC QP", "9.6.1.1",
     lambda x: [x.pkt(UD_SEND_ONLY, payload_of(8), ext=struct.pack(">II", 0x11111111, 5))],
     DROP, ["rcvd_malformed"], True, 0),
    ("PSN ahead of the expected one", "9.7.4.1.1",
     lambda x: [x.send_only(psn=x.psn + 5)], ("nak", NAK_SEQ), ["out_of_sequence"], True, 0),
    ("duplicate SEND (PSN behind)", "9.7.4.1.1, 9.7.5.1.1",
     lambda x: [x.send_only(psn=x.psn - 1)], ("dup", -1), ["duplicate_request"], True, 0),
    ("duplicate READ with the original RETH", "9.7.5.1.1",
     read_then_duplicate(lambda x, a: reth(a, x.rkey, 200)), ("reread", 1),
     ["duplicate_request"], True, 2),
    ("duplicate READ of another address and length", "9.7.5.1.1",
     read_then_duplicate(lambda x, a: reth(x.addr, x.rkey, x.len)), DROP,
     ["duplicate_request", "rcvd_dup_read_mismatch"], True, 2),
    ("duplicate READ with another R_Key", "9.7.5.1.1",
     read_then_duplicate(lambda x, a: reth(a, x.rkey ^ 0x5A5A00, 200)), DROP,
     ["duplicate_request", "rcvd_dup_read_mismatch"], True, 2),
    ("duplicate FETCH_ADD, the same again", "9.7.5.1.1",
     atomic_then_duplicate(lambda x, a: x.pkt(FETCH_ADD, ext=atomic_eth(a, x.rkey, 5))),
     ("atomic", 0), ["duplicate_request"], True, 1),
    ("duplicate FETCH_ADD with another R_Key", "9.7.5.1.1",
     atomic_then_duplicate(lambda x, a: x.pkt(FETCH_ADD, ext=atomic_eth(a, x.rkey ^ 0x5A5A00, 5))),
     DROP, ["duplicate_request", "rcvd_dup_atomic_mismatch"], True, 1),
    ("duplicate FETCH_ADD of another address", "9.7.5.1.1",
     atomic_then_duplicate(lambda x, a: x.pkt(FETCH_ADD, ext=atomic_eth(x.addr, x.rkey, 5))),
     DROP, ["duplicate_request", "rcvd_dup_atomic_mismatch"], True, 1),
    ("READ at a FETCH_ADD's PSN", "9.7.5.1.1",
     atomic_then_duplicate(lambda x, a: x.pkt(READ_REQUEST, ext=reth(a, x.rkey, 8))),
     DROP, ["duplicate_request", "rcvd_dup_atomic_mismatch"], True, 1),
    ("SEND MIDDLE without SEND FIRST", "9.7.4.1.3, 9.9.3.1.3",
     lambda x: [x.pkt(SEND_MIDDLE, payload_of(MTU))], ("nak", NAK_INVALID),
     ["sent_nak_inv_req"], False, 0),
    ("SEND FIRST shorter than the path MTU", "9.7.4.1.4, 9.9.3.1.3",
     lambda x: [x.pkt(SEND_FIRST, payload_of(MTU // 2))], ("nak", NAK_INVALID),
     ["sent_nak_inv_req"], False, 0),
    ("SEND ONLY longer than the path MTU", "9.7.4.1.4, 9.9.3.1.3",
     lambda x: [x.send_only(MTU + 256)], ("nak", NAK_INVALID), ["sent_nak_inv_req"], False, 0),
    ("reserved RC opcode 0x1f", "9.7.4.1.3, 9.9.3.1.3",
     lambda x: [x.pkt(RC_RESERVED, payload_of(16))], ("nak", NAK_INVALID),
     ["sent_nak_inv_req"], False, 0),
    # The target's MR is a user MR, which nothing may invalidate.
    ("SEND ONLY with invalidate of a key that is no fast-reg MR", "9.9.3.1.3",
     lambda x: [x.pkt(SEND_ONLY_INV, payload_of(16), ext=struct.pack(">I", x.rkey))],
     ("nak", NAK_INVALID), ["sent_nak_inv_req"], False, 0),
    ("misaligned ATOMIC", "9.7.4.1.5, 9.9.3.1.3",
     lambda x: [x.pkt(FETCH_ADD, ext=struct.pack(">QIQQ", x.addr + 4, x.rkey, 1, 0))],
     ("nak", NAK_INVALID), ["sent_nak_inv_req"], False, 0),
    ("RETH length beyond the MR (WRITE)", "9.7.4.1.4, 9.9.3.1.3",
     lambda x: [x.pkt(WRITE_ONLY, payload_of(32), reth(x.addr + x.len - 16, x.rkey, 32))],
     ("nak", NAK_ACCESS), ["sent_nak_access"], False, 0),
    ("READ beyond the MR", "9.7.4.1.4, 9.9.3.1.3",
     lambda x: [x.pkt(READ_REQUEST, ext=reth(x.addr + x.len - 8, x.rkey, 64))],
     ("nak", NAK_ACCESS), ["sent_nak_access"], False, 0),
    ("READ of 4 GiB - 1 (past max_msg_sz)", "9.7.4.1.4, 9.9.3.1.3",
     lambda x: [x.pkt(READ_REQUEST, ext=reth(x.addr, x.rkey, 0xFFFFFFFF))],
     ("nak", NAK_INVALID), ["sent_nak_inv_req"], False, 0),
    # 2^23 responses end half the PSN space away, where later reads as
    # earlier: checked before the R_Key (the MR is far smaller).
    ("READ of 2 GiB at path MTU 256 (2^23 response PSNs)", "9.7.1, 9.9.3.1.3",
     lambda x: [x.pkt(READ_REQUEST, ext=reth(x.addr, x.rkey, 1 << 31))],
     ("nak", NAK_INVALID), ["sent_nak_inv_req"], False, 0, 256),
    ("unknown R_Key", "9.7.4.1.4, 9.9.3.1.3",
     lambda x: [x.pkt(WRITE_ONLY, payload_of(32), reth(x.addr, x.rkey ^ 0x5A5A00, 32))],
     ("nak", NAK_ACCESS), ["sent_nak_access"], False, 0),
    ("MR deregistered between WRITE FIRST and MIDDLE", "9.7.4.1.4, 9.9.3.1.3",
     write_first_then_dereg, ("nak", NAK_ACCESS, 1), ["sent_nak_access"], False, 0),
    ("first SEND after RESET and reconnect carries MSN 1", "9.7.5.1.1",
     send_after_reset, ("msn", 1), [], True, 1),
]]


def ack_of(reply):
    """(opcode, psn, syndrome or None) of a reply from its BTH on."""
    opcode, psn = reply[0], struct.unpack(">I", reply[8:12])[0] & 0xFFFFFF
    qpn = struct.unpack(">I", reply[4:8])[0] & 0xFFFFFF
    if qpn != CRAFTER_QPN:
        raise AssertionError(f"reply to QPN {qpn:#x}, not {CRAFTER_QPN:#x}")
    syndrome = reply[12] if opcode in (ACKNOWLEDGE, READ_RESPONSE_ONLY, ATOMIC_ACKNOWLEDGE) else None
    return opcode, psn, syndrome


def expected_replies(want):
    """How many packets the target answers a row with."""
    if want is None:
        return 0
    return 2 if want[0] == "read" else 1    # READ: the WRITE's ACK, then the data


def reply_problem(x, want, replies, psn0):
    """None if @replies is what @want says, else what went wrong."""
    got = [ack_of(r) for r in replies]
    if want is DROP:
        return f"expected no reply, got {got}" if got else None
    kind, arg, *nak_offset = want
    if kind == "ack":
        ok = got and got[-1][0] == ACKNOWLEDGE and got[-1][2] < 0x20 and \
            got[-1][1] == (psn0 + arg) & 0xFFFFFF
        return None if ok else f"expected ACK of PSN {psn0 + arg:#x}, got {got}"
    if kind == "msn":
        msn = int.from_bytes(replies[-1][13:16], "big") if got else None
        ok = got and got[-1][0] == ACKNOWLEDGE and got[-1][2] < 0x20 and msn == arg
        return None if ok else f"expected an ACK with MSN {arg}, got {got} MSN {msn}"
    if kind == "dup":
        ok = got and got[-1][0] == ACKNOWLEDGE and got[-1][2] < 0x20
        return None if ok else f"expected an ACK for the duplicate, got {got}"
    if kind == "atomic":
        ok = got and got[-1][0] == ATOMIC_ACKNOWLEDGE and got[-1][2] < 0x20 and \
            got[-1][1] == (psn0 + arg) & 0xFFFFFF
        return None if ok else f"expected ATOMIC ACKNOWLEDGE of PSN {psn0 + arg:#x}, got {got}"
    if kind in ("read", "reread"):
        data = [r for r in replies if r[0] == READ_RESPONSE_ONLY]
        ok = data and data[0][16:16 + 200] == payload_of(200) and \
            ack_of(data[0])[1] == (psn0 + arg) & 0xFFFFFF
        return None if ok else f"expected the written bytes back in a READ RESPONSE ONLY, got {got}"
    psn = (psn0 + (nak_offset[0] if nak_offset else 0)) & 0xFFFFFF
    ok = got and got[-1][0] == ACKNOWLEDGE and got[-1][2] == arg and got[-1][1] == psn
    return None if ok else f"expected NAK {arg:#x} for PSN {psn:#x}, got {got}"


def counter_problem(before, after, names, dropped):
    """Each counter of @names moved by one, and rcvd_dropped too if the
    packet was silently @dropped."""
    for name in names + ["rcvd_dropped"]:
        if name not in after:
            return f"no counter {name}"
    for name in names:
        if after[name] - before[name] != 1:
            return f"{name} moved by {after[name] - before[name]}, expected 1"
    moved = after["rcvd_dropped"] - before["rcvd_dropped"]
    if dropped and moved != 1:
        return f"rcvd_dropped moved by {moved}, expected 1"
    return None


def receive_completed(x, length):
    """The target reports a successful receive of @length bytes (it polls
    its CQ every 20 ms: give it a few seconds on a loaded TCG guest)."""
    want = f"wc status=0 opcode={IBV_WC_RECV} len={length}"
    for _ in range(50):
        if any(w.startswith(want) for w in json.loads(x.ask("wcs"))):
            return True
        time.sleep(0.1)
    return False


def survival_problem(x, survives):
    """Send a valid SEND at the expected PSN: ACK + completion, or nothing;
    a QP in error drops it as rcvd_unknown_qpn, not in rcvd_pkts."""
    x.ask("wcs")
    before = json.loads(x.ask("counters"))
    x.c.send(x.send_only(32))
    replies = x.c.replies(1 if survives else 0)
    state = int(x.ask("state"))
    if survives:
        err = reply_problem(x, ("ack", 0), replies, x.psn)
        if err:
            return "valid SEND after the row: " + err
        if not receive_completed(x, 32):
            return "valid SEND after the row: no receive completion"
        x.psn += 1
        return None if state == QPS_RTS else f"QP state {state}, expected RTS"
    if replies:
        return f"QP answered after a fatal error: {[ack_of(r) for r in replies]}"
    if state != QPS_ERR:
        return f"QP state {state}, expected ERROR"
    after = json.loads(x.ask("counters"))
    moved = {n: after[n] - before[n] for n in ("rcvd_pkts", "rcvd_unknown_qpn")}
    if moved != {"rcvd_pkts": 0, "rcvd_unknown_qpn": 1}:
        return f"valid SEND to the QP in error moved {moved}, expected rcvd_unknown_qpn only"
    return None


def run_row(x, row):
    before = json.loads(x.ask("counters"))
    psn0 = x.psn
    for p in row.packets(x):
        x.c.send(p)
    err = reply_problem(x, row.reply, x.c.replies(expected_replies(row.reply)), psn0)
    after = json.loads(x.ask("counters"))
    err = err or counter_problem(before, after, row.counters, row.reply is DROP)
    x.psn += row.psns
    return err or survival_problem(x, row.survives)


# --- the target as requester: responses to its READ ----------------------------

def aeth(syndrome, msn=1):
    return struct.pack(">I", syndrome << 24 | msn)


def read_request_psn(x, length):
    """The target posts a READ of @length bytes: the PSN of its request."""
    if x.ask(f"read {length}") != "0":
        raise AssertionError("the target's ibv_post_send of a READ failed")
    got = [ack_of(r) for r in x.c.replies(1)]
    if not got or got[0][0] != READ_REQUEST:
        raise AssertionError(f"expected the target's READ request, got {got}")
    return got[0][1]


def completion_of(x, status):
    """The target's READ completes with @status within a few seconds."""
    want = f"wc status={status} "
    for _ in range(50):
        wcs = json.loads(x.ask("wcs"))
        if any(w.startswith(want) for w in wcs):
            return None
        if any(w.startswith("wc ") for w in wcs):
            return f"completion {wcs}, expected status {status}"
        time.sleep(0.1)
    return f"no completion, expected status {status}"


def reserved_aeth_then_data(x, psn):
    """An ACK of type 10b (0x41: reserved, not a NAK), then the data."""
    return [x.pkt(ACKNOWLEDGE, ext=aeth(0x41), psn=psn),
            x.pkt(READ_RESPONSE_ONLY, payload_of(64), aeth(ACK_CREDITS_INVALID), psn=psn)]


def only_past_the_mtu(x, psn):
    """READ of 2 MTUs answered in full by one ONLY of 2 MTUs."""
    return [x.pkt(READ_RESPONSE_ONLY, payload_of(2 * x.mtu), aeth(ACK_CREDITS_INVALID), psn=psn)]


# A row: READ length, the responses (ctx, PSN of the request) -> packets, the
# IBA sections, the status the READ must complete with, the counters that
# must move by exactly one, the target's path MTU.
ReqCase = collections.namedtuple("ReqCase", "name spec length responses status counters mtu")
REQ_CASES = [ReqCase(*row) for row in [
    ("ACK with reserved AETH type 10b, then the READ's data", "9.7.5.1.5 (table 43)",
     64, reserved_aeth_then_data, IBV_WC_SUCCESS, ["rcvd_malformed"], MTU),
    ("READ RESPONSE ONLY longer than the path MTU", "9.7.4.1.4, 9.9.4",
     2 * 256, only_past_the_mtu, IBV_WC_BAD_RESP_ERR, [], 256),
]]


def run_req_row(c, row):
    x = Ctx(c, c.ask(f"new {FIRST_PSN} {row.mtu}"), row.mtu)
    x.ask("wcs")
    # Counters first: the answer must come well inside the target's ACK
    # timeout (67 ms, 7 retries) after its request.
    before = json.loads(x.ask("counters"))
    psn = read_request_psn(x, row.length)
    for p in row.responses(x, psn):
        x.c.send(p)
    err = completion_of(x, row.status)
    after = json.loads(x.ask("counters"))
    return err or counter_problem(before, after, row.counters, False)


# --- UD rows: datagrams to a UD QP (tests/verbs/ud_target.c) ----------------------

GSI_QKEY = 0x80010000


def deth(qkey=UD_QKEY, src_qpn=CRAFTER_QPN):
    return struct.pack(">II", qkey, src_qpn & 0xFFFFFF)


def ud_send(x, n=64, **kw):
    return x.pkt(UD_SEND_ONLY, payload_of(n), deth(), **kw)


# A row: the packets, the IBA sections, the counters that must move by
# exactly one, and the byte_len of the receive it completes (None: dropped,
# rcvd_dropped moves by one). A UD QP answers nothing, ever; after each row
# a valid datagram must still land.
UdCase = collections.namedtuple("UdCase", "name spec packets counters recv_len")
UD_CASES = [UdCase(*row) for row in [
    ("valid UD SEND ONLY", "9.6.3.1", lambda x: [ud_send(x)], ["rcvd_pkts"], GRH_BYTES + 64),
    ("valid UD SEND ONLY with immediate", "9.6.3.1",
     lambda x: [x.pkt(UD_SEND_ONLY_IMM, payload_of(64), deth() + struct.pack(">I", 0x1234))],
     ["rcvd_pkts"], GRH_BYTES + 64),
    ("wrong Q_Key", "10.2.5, 9.6.3.1",
     lambda x: [x.pkt(UD_SEND_ONLY, payload_of(64), deth(qkey=UD_QKEY ^ 1))],
     ["qkey_viol"], None),
    ("payload longer than the port MTU", "9.6.3.1, C10-93.1.1",
     lambda x: [ud_send(x, MTU + 64)], ["rcvd_ud_len_err"], None),
    ("payload longer than the receive buffer", "9.6.3.1",
     lambda x: [ud_send(x, 600)], ["rcvd_ud_len_err"], None),
    ("truncated DETH (4 of 8 bytes)", "9.2, 9.6.1.1",
     lambda x: [x.pkt(UD_SEND_ONLY, raw_body=struct.pack(">I", UD_QKEY))],
     ["rcvd_malformed"], None),
    ("unknown destination QP", "9.6.1.1",
     lambda x: [ud_send(x, qpn=0xABCDEF)], ["rcvd_unknown_qpn"], None),
    ("RC opcode to a UD QP", "9.6.1.1",
     lambda x: [x.send_only()], ["rcvd_malformed"], None),
    ("P_Key mismatch", "9.6.1.1, 10.9.3",
     lambda x: [ud_send(x, pkey=0x1234)], ["rcvd_bad_pkey"], None),
    ("bad ICRC", "A17.8.1, 7.8.1",
     lambda x: [ud_send(x, icrc_xor=1)], ["icrc_errors"], None),
    # QP 1 is the target device's GSI QP (ib_mad's, Q_Key 0x80010000).
    ("to the GSI QP with a P_Key mismatch", "9.6.1.1, 10.9.3",
     lambda x: [x.pkt(UD_SEND_ONLY, payload_of(256), deth(qkey=GSI_QKEY), qpn=1, pkey=0x1234)],
     ["rcvd_bad_pkey"], None),
    ("to the GSI QP with a wrong Q_Key", "10.2.5, 9.6.3.1",
     lambda x: [x.pkt(UD_SEND_ONLY, payload_of(256), deth(qkey=GSI_QKEY ^ 1), qpn=1)],
     ["qkey_viol"], None),
    ("to QP 0, which RoCE does not have", "9.6.1.1",
     lambda x: [x.pkt(UD_SEND_ONLY, payload_of(256), deth(qkey=0), qpn=0)],
     ["rcvd_unknown_qpn"], None),
]]


def ud_received(x, length):
    """The UD target reports a receive of @length bytes from the crafter's
    QPN, with IBV_WC_GRH (it polls every 20 ms)."""
    want = f"wc status=0 opcode={IBV_WC_RECV} len={length} src_qp={CRAFTER_QPN} grh=1"
    for _ in range(50):
        if want in json.loads(x.ask("wcs")):
            return True
        time.sleep(0.1)
    return False


def send_unanswered(x, row, kind, dropped):
    """Send @row's packets to a QP that answers nothing (@kind: UD, UC):
    None if nothing came back and the counters moved as the row says."""
    x.ask("wcs")
    before = json.loads(x.ask("counters"))
    for p in row.packets(x):
        x.c.send(p)
    replies = x.c.replies(0)
    if replies:
        return f"a {kind} QP answered: {[r[:12].hex() for r in replies]}"
    after = json.loads(x.ask("counters"))
    return counter_problem(before, after, row.counters, dropped)


def run_ud_row(x, row):
    err = send_unanswered(x, row, "UD", row.recv_len is None)
    if err:
        return err
    if row.recv_len is not None and not ud_received(x, row.recv_len):
        return f"no receive completion of {row.recv_len} bytes"
    x.c.send(ud_send(x, 32))
    if not ud_received(x, GRH_BYTES + 32):
        return "valid datagram after the row: no receive completion"
    return None if int(x.ask("state")) == QPS_RTS else "UD QP not in RTS"


# --- UC rows: requests to a UC QP (tests/verbs/rc_target.c with "uc") -----------

UC = 0x20           # the UC opcode class: UC | SEND_ONLY is UC's SEND ONLY
UC_RECVS = 16


def uc_pkt(x, op, n=0, **kw):
    return x.pkt(UC | op, payload_of(n), **kw)


# A row: the packets, the IBA sections, the counters that must move by
# exactly one, whether rcvd_dropped must move by exactly one, the byte_len of
# the one receive it completes (None: none, not even in error), the PSNs it
# uses up, and the receives of a fresh target for it (None: the current
# one). A UC QP answers nothing, ever (AckReq is set on every packet sent
# here); after each row one more receive is posted and a valid SEND ONLY
# must still land, the QP in RTS.
UcCase = collections.namedtuple("UcCase", "name spec packets counters dropped recv_len psns recvs")
UC_CASES = [UcCase(*row) for row in [
    ("valid SEND ONLY, not acknowledged", "9.8.3",
     lambda x: [uc_pkt(x, SEND_ONLY, 64)], ["rcvd_pkts"], False, 64, 1, UC_RECVS),
    ("valid SEND FIRST + LAST", "9.8.3",
     lambda x: [uc_pkt(x, SEND_FIRST, MTU), uc_pkt(x, SEND_LAST, 100, psn=x.psn + 1)],
     [], False, MTU + 100, 2, None),
    ("valid WRITE ONLY", "9.8.3",
     lambda x: [uc_pkt(x, WRITE_ONLY, 32, ext=reth(x.addr, x.rkey, 32))],
     ["rcvd_pkts"], False, None, 1, None),
    # One receive posted: the SEND ONLY after the gap completes on it.
    ("PSN gap inside a SEND: dropped, its receive reused by the next message", "9.8.3, class D1",
     lambda x: [uc_pkt(x, SEND_FIRST, MTU), uc_pkt(x, SEND_LAST, 100, psn=x.psn + 2),
                uc_pkt(x, SEND_ONLY, 48, psn=x.psn + 3)],
     ["uc_dropped_msgs"], True, 48, 4, 1),
    ("SEND MIDDLE with no message under way", "9.8.3",
     lambda x: [uc_pkt(x, SEND_MIDDLE, MTU)], [], True, None, 1, UC_RECVS),
    ("SEND FIRST while a SEND is unfinished: that one abandoned", "9.8.3, class D1",
     lambda x: [uc_pkt(x, SEND_FIRST, MTU), uc_pkt(x, SEND_FIRST, MTU, psn=x.psn + 1),
                uc_pkt(x, SEND_LAST, 100, psn=x.psn + 2)],
     ["uc_dropped_msgs", "out_of_sequence"], False, MTU + 100, 3, None),
    ("PSN gap between messages: the next SEND ONLY resyncs", "9.8.3",
     lambda x: [uc_pkt(x, SEND_ONLY, 64, psn=x.psn + 5)], ["out_of_sequence", "rcvd_pkts"],
     False, 64, 6, None),
    ("WRITE MIDDLE inside a SEND", "9.8.3, class D1",
     lambda x: [uc_pkt(x, SEND_FIRST, MTU),
                uc_pkt(x, WRITE_MIDDLE, MTU, psn=x.psn + 1)],
     ["uc_dropped_msgs"], True, None, 2, None),
    ("no receive posted", "9.8.3, class D",
     lambda x: [uc_pkt(x, SEND_ONLY, 64)], ["uc_dropped_msgs"], True, None, 1, 0),
    ("SEND ONLY longer than the path MTU", "9.8.3, class D",
     lambda x: [uc_pkt(x, SEND_ONLY, MTU + 256)], ["uc_dropped_msgs"], True, None, 1, UC_RECVS),
    ("WRITE ONLY with an unknown R_Key", "9.8.3, class D",
     lambda x: [uc_pkt(x, WRITE_ONLY, 32, ext=reth(x.addr, x.rkey ^ 0x5A5A00, 32))],
     ["uc_dropped_msgs"], True, None, 1, None),
    ("WRITE ONLY beyond the MR", "9.8.3, class D",
     lambda x: [uc_pkt(x, WRITE_ONLY, 32, ext=reth(x.addr + x.len - 16, x.rkey, 32))],
     ["uc_dropped_msgs"], True, None, 1, None),
    ("RC opcode to a UC QP", "9.6.1.1",
     lambda x: [x.send_only()], ["rcvd_malformed"], True, None, 0, None),
    ("UC opcode 0x2c (UC has no RDMA READ)", "9.6.1.1",
     lambda x: [x.pkt(UC | READ_REQUEST, ext=reth(x.addr, x.rkey, 64))],
     ["rcvd_malformed"], True, None, 0, None),
]]


def no_completion(x):
    """The target reports no completion at all (it polls every 20 ms)."""
    time.sleep(0.3)
    wcs = [w for w in json.loads(x.ask("wcs")) if w.startswith("wc ")]
    return f"unexpected completions {wcs}" if wcs else None


def run_uc_row(x, row):
    err = send_unanswered(x, row, "UC", row.dropped)
    if err:
        return err
    if row.recv_len is not None and not receive_completed(x, row.recv_len):
        return f"no receive completion of {row.recv_len} bytes"
    if row.recv_len is None:
        err = no_completion(x)
        if err:
            return err
    x.psn += row.psns
    x.ask("post")
    x.c.send(uc_pkt(x, SEND_ONLY, 32))
    if x.c.replies(0):
        return "valid SEND ONLY after the row: answered"
    if not receive_completed(x, 32):
        return "valid SEND ONLY after the row: no receive completion"
    x.psn += 1
    return None if int(x.ask("state")) == QPS_RTS else "UC QP not in RTS"


def verdict(n, title, run):
    """Run one row; print its ok/not ok line. Return: True if it failed."""
    try:
        err = run()
    except (AssertionError, ValueError, KeyError, IndexError, TimeoutError) as e:
        err = f"{type(e).__name__}: {e}"
    print(f"{'not ok' if err else 'ok'} {n} - {title}" + (f": {err}" if err else ""),
          flush=True)
    return bool(err)


def run_crafter(args):
    c = Crafter(args)
    x, failed = None, 0
    for n, row in enumerate(CASES, 1):
        if x is None or x.mtu != row.mtu:
            x = Ctx(c, c.ask(f"new {FIRST_PSN} {row.mtu}"), row.mtu)
        err = verdict(n, f"{row.name} (IBA {row.spec})", lambda: run_row(x, row))
        failed += err
        if err or not row.survives:
            x = None        # a fresh QP for the next row
    for n, row in enumerate(REQ_CASES, len(CASES) + 1):
        failed += verdict(n, f"requester: {row.name} (IBA {row.spec})",
                          lambda: run_req_row(c, row))
    first = len(CASES) + len(REQ_CASES) + 1
    x = Ctx(c, c.ask("newud")) if args.ud else None
    for n, row in enumerate(UD_CASES if x else [], first):
        failed += verdict(n, f"UD: {row.name} (IBA {row.spec})", lambda: run_ud_row(x, row))
    first += len(UD_CASES) if x else 0
    x = None
    for n, row in enumerate(UC_CASES if args.uc else [], first):
        if row.recvs is not None:
            x = Ctx(c, c.ask(f"newuc {FIRST_PSN} {row.recvs}"))
        failed += verdict(n, f"UC: {row.name} (IBA {row.spec})", lambda: run_uc_row(x, row))
    total = len(CASES) + len(REQ_CASES) + (len(UD_CASES) if args.ud else 0) + \
        (len(UC_CASES) if args.uc else 0)
    c.ask("bye")
    print(f"{total - failed} passed, {failed} failed; "
          f"{c.replies_checked} replies from the target had valid ICRCs")
    return 1 if failed else 0


def add_agent_parser(sub):
    """The agent role's options (roce_mutate.py's agent has them too)."""
    a = sub.add_parser("agent")
    a.add_argument("--port", type=int, required=True)
    a.add_argument("--dev", default="sroce0")
    a.add_argument("--ud-target", default="",
                   help="UD target command (its Q_Key must be UD_QKEY)")
    a.add_argument("target", nargs=argparse.REMAINDER,
                   help="target command; {psn} is replaced by the first PSN")
    return a


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="role", required=True)
    add_agent_parser(sub)
    c = sub.add_parser("craft")
    c.add_argument("--agent", required=True)
    c.add_argument("--src", required=True)
    c.add_argument("--dst", required=True)
    c.add_argument("--ud", action="store_true", help="also the UD rows (agent --ud-target)")
    c.add_argument("--uc", action="store_true", help="also the UC rows")
    args = ap.parse_args()
    if args.role == "agent":
        args.target = [t for t in args.target if t != "--"]
        return run_agent(args)
    return run_crafter(args)


if __name__ == "__main__":
    sys.exit(main())
