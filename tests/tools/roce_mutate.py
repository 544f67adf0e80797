#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Packet fuzzer: mutated RoCEv2 packets, with ICRCs that pass, at live QPs.

Two roles, on two hosts of one link, as roce_craft.py (whose agent pieces,
targets and packet helpers it reuses):

  roce_mutate.py agent --port P --dev DEV --ud-target CMD [--splat RE] -- RC_TARGET...
      on the host under test: one RC target (tests/verbs/rc_target.c) and
      one UD target (ud_target.c) side by side, answering one line each way:
        new PSN MTU | newud    a fresh RC / UD target -> its "qpn=.." line
        state | udstate        their QP state (enum ibv_qp_state)
        read LEN               the RC target posts a READ to the fuzzer
        wcs | udwcs            JSON list of their completions since the last ask
        counters               JSON of the device's hw_counters
        splats                 kernel log lines matching --splat since the agent started
        bye

  roce_mutate.py fuzz --agent HOST:PORT --src IP --dst IP [--src6 IP --dst6 IP]
                      [--seed S] [--seconds T] [--count N] [--replay N[-M]]
      on the other host (nothing there owns UDP 4791): mutant after mutant,
      each made from a seed packet (rdma_rxe's capture, retargeted, and
      packets built for the live targets: RC requests and responses, UD
      SENDs, a MAD to QP 1), retargeted at the RC QP, the UD QP, QP 1 or a
      QPN nearby, with PSNs near the expected ones, mutated 1-3 times
      (bits, edge bytes, BTH/RETH/AETH/DETH/AtomicETH fields, truncation,
      extension, IPv4/IPv6/UDP lengths, IP options), its ICRC recomputed over
      what the receiver will see (1 in 20 left wrong), sent as an Ethernet
      frame (AF_PACKET: every IP header byte is ours). Every CHECK_EVERY
      mutants the agent reports new kernel splats (a splat stops the run and
      prints the mutants sent since the last clean check) and the RC QP's
      state; a QP in error, or one that took RESTART_EVERY mutants, is
      replaced by a fresh one that must answer a valid SEND with an ACK (the
      device still works). At the end the UD QP must be in RTS and still
      receive. Prints the mutants by seed and by mutation, and the counter
      deltas. Mutant N depends only on (seed, N) and the live targets:
      --replay N or N-M sends just those, a splat check after each.

  roce_mutate.py show --seed S N[-M]
      prints what mutants N..M are, against made-up targets, sending nothing.
"""
import argparse
import collections
import json
import random
import re
import shlex
import socket
import struct
import subprocess
import sys
import threading
import time

import roce_craft as rc
from rocev2 import (BTH_BYTES, ROCEV2_PORT, capture_records, frame_ip, icrc_of, opcode_info,
                    rocev2_of)

PCAP = __file__.rsplit("/", 2)[0] + "/data/rxe-6.1-rc-sample.pcap"
CHECK_EVERY = 100         # mutants between splat/state checks
RESTART_EVERY = 400       # mutants before the RC target is replaced anyway
BAD_ICRC_SHARE = 0.05
IPV6_SHARE = 0.3          # of the UD and MAD seeds, when IPv6 addresses are given
REQ_PSN = 0x200           # the RC target's first send PSN (rc_target.c)
GSI_QPN = 1
MAD_BYTES = 256
READ_LEN = 4096           # the READ the RC target posts, so responses have a request
ETH_P_IP, ETH_P_IPV6 = 0x0800, 0x86DD
QPS_ERR = rc.QPS_ERR
UD_PROBE_LEN = 52         # a probe datagram's payload: 40 + 52 is no mutant's length

# Opcodes (RC unless said), beyond roce_craft's
SEND_ONLY_IMM, SEND_LAST_INV = 0x05, 0x16
WRITE_LAST, WRITE_ONLY_IMM = 0x08, 0x0B
READ_RESPONSE_MIDDLE, ATOMIC_ACK, COMPARE_SWAP = 0x0E, 0x12, 0x13
RESPONSES = range(0x0D, 0x13)            # READ RESPONSE .. ATOMIC ACKNOWLEDGE
RETH_OPS = (0x06, 0x0A, 0x0B, 0x0C)
ATMETH_OPS = (0x13, 0x14)
AETH_OPS = (0x0D, 0x0F, 0x10, 0x11, 0x12)


# --- the agent -------------------------------------------------------------------

class KernelLog:
    """Kernel log lines matching a pattern, from "dmesg -w" (started before
    any target; read by a thread, so an ask costs no dmesg run)."""

    def __init__(self, pattern):
        self.pattern, self.found = re.compile(pattern), []
        self.proc = subprocess.Popen(["dmesg", "-w"], stdout=subprocess.PIPE, text=True,
                                     errors="replace")
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self):
        for line in self.proc.stdout:
            if self.pattern.search(line):
                self.found.append(line.rstrip())

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class RcTargets:
    """The RC target, with a spare started in the background: "new" swaps
    to the spare at once (a fresh QP costs a process start, a device open
    and a QP set-up: a second or so on a TCG guest, while fuzzing puts
    QPs in error every few dozen mutants)."""

    def __init__(self, cmd, dev):
        self.current, self.spare = rc.Agent(cmd, None, dev), rc.Agent(cmd, None, dev)
        self.spare_info, self.starting = None, None

    def _start_spare(self, psn, mtu):
        def start():
            self.spare.stop()
            self.spare_info = self.spare.new(psn, mtu)
        self.starting = threading.Thread(target=start)
        self.starting.start()

    def new(self, psn, mtu):
        if self.starting is None:
            self._start_spare(psn, mtu)
        self.starting.join()
        self.current, self.spare = self.spare, self.current
        info = self.spare_info
        self._start_spare(psn, mtu)      # stops the old one, starts the next
        return info

    def stop(self):
        if self.starting:
            self.starting.join()
        self.current.stop()
        self.spare.stop()


def run_agent(args):
    rc_targets = RcTargets(args.target, args.dev)
    ud_target = rc.Agent(None, shlex.split(args.ud_target), args.dev)
    log = KernelLog(args.splat)
    time.sleep(0.5)
    seen = len(log.found)       # what the log held before: not ours
    srv = socket.create_server(("0.0.0.0", args.port))
    conn, _ = srv.accept()
    f = conn.makefile("rw")
    commands = {
        "new": lambda arg: rc_targets.new(*map(int, arg.split())),
        "newud": lambda arg: ud_target.new_ud(),
        # Completions first: state() looks for its line past every one queued.
        "state": lambda arg: (rc_targets.current.wcs(), rc_targets.current.state())[1], "udstate": lambda arg: ud_target.state(),
        "read": lambda arg: rc_targets.current.read(int(arg)),
        "wcs": lambda arg: rc_targets.current.wcs(), "udwcs": lambda arg: ud_target.wcs(),
        "counters": lambda arg: rc_targets.current.counters(),
        "splats": lambda arg: json.dumps(log.found[seen:]),
    }
    for line in f:
        word, _, arg = line.strip().partition(" ")
        if word == "bye":
            break
        f.write(commands[word](arg) + "\n")
        f.flush()
    rc_targets.stop()
    ud_target.stop()
    log.stop()
    return 0


# --- what the fuzzer knows of the targets ----------------------------------------

class Live:
    """The live targets: RC QP (qpn, rkey, addr, len), its expected PSN and the
    PSN of the READ it posted; the UD QP; the path MTU."""

    def __init__(self, rc_info, ud_info, mtu=rc.MTU):
        kv = dict(x.split("=") for x in rc_info.split())
        self.qpn, self.rkey = int(kv["qpn"]), int(kv["rkey"])
        self.addr, self.len = int(kv["addr"]), int(kv["len"])
        self.ud_qpn = int(dict(x.split("=") for x in ud_info.split())["qpn"])
        self.mtu, self.epsn, self.req_psn = mtu, rc.FIRST_PSN, REQ_PSN


# --- seeds: (name, function of Live -> BTH .. payload, family choice) -----------

def with_pad(opcode, qpn, psn, ext, data):
    """BTH with the pad count of @data, then @ext and the padded @data."""
    body, pad = rc.padded(data)
    return rc.bth(opcode, qpn, psn, pad) + ext + body


def req(opcode, n=0, ext=lambda x: b""):
    return lambda x: with_pad(opcode, x.qpn, x.epsn, ext(x), rc.payload_of(n))


def resp(opcode, n=0, ext=lambda x: rc.aeth(rc.ACK_CREDITS_INVALID)):
    return lambda x: with_pad(opcode, x.qpn, x.req_psn, ext(x), rc.payload_of(n))


def mad():
    """A CM REQ-shaped MAD: base version 1, class 0x07, version 2, method Send."""
    head = struct.pack(">BBBBHHQHHI", 1, 0x07, 2, 0x03, 0, 0, 0x5eed, 0x0010, 0, 0)
    return head + rc.payload_of(MAD_BYTES - len(head))


BUILT_SEEDS = [
    ("rc_send_only", req(rc.SEND_ONLY, 64)),
    ("rc_send_first", lambda x: req(rc.SEND_FIRST, x.mtu)(x)),
    ("rc_send_middle", lambda x: req(rc.SEND_MIDDLE, x.mtu)(x)),
    ("rc_send_last", req(rc.SEND_LAST, 100)),
    ("rc_send_only_imm", req(SEND_ONLY_IMM, 33, lambda x: struct.pack(">I", 0xabcd))),
    ("rc_send_last_inv", req(SEND_LAST_INV, 16, lambda x: struct.pack(">I", x.rkey))),
    ("rc_write_only", req(rc.WRITE_ONLY, 200, lambda x: rc.reth(x.addr + 4096, x.rkey, 200))),
    ("rc_write_first", lambda x: req(rc.WRITE_FIRST, x.mtu,
                                     lambda y: rc.reth(y.addr, y.rkey, 3 * y.mtu))(x)),
    ("rc_write_middle", lambda x: req(rc.WRITE_MIDDLE, x.mtu)(x)),
    ("rc_write_last", req(WRITE_LAST, 77)),
    ("rc_write_only_imm", req(WRITE_ONLY_IMM, 8, lambda x: rc.reth(x.addr + 64, x.rkey, 8) +
                              struct.pack(">I", 7))),
    ("rc_read_request", req(rc.READ_REQUEST, 0, lambda x: rc.reth(x.addr, x.rkey, 2048))),
    ("rc_compare_swap", req(COMPARE_SWAP, 0, lambda x: struct.pack(">QIQQ", x.addr + 8,
                                                                    x.rkey, 5, 0))),
    ("rc_fetch_add", req(rc.FETCH_ADD, 0, lambda x: struct.pack(">QIQQ", x.addr + 16,
                                                                 x.rkey, 1, 0))),
    ("rc_ack", resp(rc.ACKNOWLEDGE)),
    ("rc_nak_seq", resp(rc.ACKNOWLEDGE, 0, lambda x: rc.aeth(rc.NAK_SEQ))),
    ("rc_nak_access", resp(rc.ACKNOWLEDGE, 0, lambda x: rc.aeth(rc.NAK_ACCESS))),
    ("rc_rnr_nak", resp(rc.ACKNOWLEDGE, 0, lambda x: rc.aeth(0x20 | 3))),
    ("rc_read_resp_first", lambda x: resp(rc.READ_RESPONSE_FIRST, x.mtu)(x)),
    ("rc_read_resp_middle", lambda x: resp(READ_RESPONSE_MIDDLE, x.mtu, lambda y: b"")(x)),
    ("rc_read_resp_last", resp(rc.READ_RESPONSE_LAST, 100)),
    ("rc_read_resp_only", resp(rc.READ_RESPONSE_ONLY, 64)),
    ("rc_atomic_ack", resp(ATOMIC_ACK, 0, lambda x: rc.aeth(rc.ACK_CREDITS_INVALID) +
                           struct.pack(">Q", 42))),
    ("ud_send_only", lambda x: with_pad(rc.UD_SEND_ONLY, x.ud_qpn, 1, rc.deth(),
                                        rc.payload_of(64))),
    ("ud_send_only_imm", lambda x: with_pad(rc.UD_SEND_ONLY_IMM, x.ud_qpn, 2,
                                            rc.deth() + struct.pack(">I", 9),
                                            rc.payload_of(21))),
    ("gsi_mad", lambda x: with_pad(rc.UD_SEND_ONLY, GSI_QPN, 3,
                                   rc.deth(qkey=rc.GSI_QKEY, src_qpn=GSI_QPN), mad())),
]


def retarget_capture(transport):
    """A captured packet (BTH .. payload) as a seed for the live RC QP: its
    QPN, a PSN near the expected one (requests) or the READ's (responses),
    and RETH/AtomicETH addresses moved into the target's MR with its R_Key."""
    def build(x):
        t = bytearray(transport)
        opcode = t[0]
        psn = x.req_psn if opcode in RESPONSES else x.epsn
        t[4:12] = struct.pack(">II", x.qpn, (t[8] << 24) | psn)
        if opcode in RETH_OPS or opcode in ATMETH_OPS:
            va = struct.unpack_from(">Q", t, 12)[0]
            struct.pack_into(">QI", t, 12, x.addr + (va & 0xFF8), x.rkey)
        return bytes(t)
    return build


def capture_seeds(path=PCAP):
    """One seed per captured packet of rdma_rxe's capture."""
    out = []
    try:
        records = capture_records(path)
    except OSError:
        return out
    for linktype, frame in records:
        ip = frame_ip(linktype, frame)
        found = rocev2_of(ip) if ip else None
        if not found:
            continue
        pkt, ihl = found
        transport = pkt[ihl + 8:-4]
        name = opcode_info(transport[0])[0].lower()
        out.append((f"rxe_{name}", retarget_capture(transport)))
    return out


# --- a mutant -------------------------------------------------------------------

class Mutant:
    """One packet under mutation: its family, IP options, transport bytes
    (BTH .. payload) and how the IP/UDP headers are to lie about them."""

    def __init__(self, family, transport):
        self.family, self.t = family, bytearray(transport)
        self.ip_opts = b""
        self.ihl = None              # IPv4 header length field, if not the real one
        self.ip_len_delta = 0        # IPv4 total length / IPv6 payload length
        self.udp_len_delta = 0
        self.ip_bytes = {}           # IP header offset -> byte, set after building
        self.frag = 0x4000           # DF
        self.icrc_ok = True
        self.icrc_xor = 0

    def ip_udp(self, src, dst):
        udp_len = 8 + len(self.t) + 4
        udp = struct.pack(">HHHH", 0xC0DE, ROCEV2_PORT, (udp_len + self.udp_len_delta) & 0xFFFF, 0)
        if self.family == 6:
            ip = bytearray(struct.pack(">IHBB16s16s", 6 << 28, (udp_len + self.ip_len_delta) & 0xFFFF,
                                       17, 64, socket.inet_pton(socket.AF_INET6, src),
                                       socket.inet_pton(socket.AF_INET6, dst)))
        else:
            hl = 20 + len(self.ip_opts)
            ihl = hl // 4 if self.ihl is None else self.ihl
            ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x40 | (ihl & 0xF), 0,
                                       (hl + udp_len + self.ip_len_delta) & 0xFFFF, 0x5eed,
                                       self.frag, 64, 17, 0, socket.inet_aton(src),
                                       socket.inet_aton(dst)) + self.ip_opts)
        for off, value in self.ip_bytes.items():
            if off < len(ip):
                ip[off] = value
        if self.family == 4:
            ip[10:12] = struct.pack(">H", ip_checksum(ip[:(ip[0] & 0xF) * 4] or ip[:20]))
        return bytes(ip), udp

    def packet(self, src, dst):
        """The IP packet, its ICRC written where the receiver will read it."""
        ip, udp = self.ip_udp(src, dst)
        pkt = bytearray(ip + udp + self.t + b"\0\0\0\0")
        end = receiver_end(pkt, len(ip))
        # Dropped for its lengths before sroce, or too short for its ICRC check.
        if end is not None and end - 4 >= len(ip) + 8 + BTH_BYTES:
            icrc = icrc_of(bytes(pkt[:end - 4])) if self.icrc_ok else 0
            pkt[end - 4:end] = struct.pack("<I", icrc ^ self.icrc_xor)
        return bytes(pkt)


def ip_checksum(hdr):
    hdr = bytes(hdr[:10]) + b"\0\0" + bytes(hdr[12:])
    if len(hdr) % 2:
        hdr += b"\0"
    s = sum(struct.unpack(f">{len(hdr) // 2}H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def receiver_end(pkt, ip_hdr_len):
    """Where the UDP payload ends as the receiving IP and UDP layers trim
    @pkt (IPv4 total length or IPv6 payload length, then the UDP length),
    or None if they would drop it for its lengths."""
    if pkt[0] >> 4 == 6:
        end = 40 + struct.unpack_from(">H", pkt, 4)[0]
    else:
        ihl = (pkt[0] & 0xF) * 4
        end = struct.unpack_from(">H", pkt, 2)[0]
        if ihl < 20 or end < ihl or ihl != ip_hdr_len:
            return None
    if end > len(pkt):
        return None
    udp_len = struct.unpack_from(">H", pkt, ip_hdr_len + 4)[0]
    if udp_len < 8 or ip_hdr_len + udp_len > end:
        return None
    return ip_hdr_len + udp_len


# --- mutations: each changes @m and says what it did ----------------------------

EDGE_BYTES = (0x00, 0xFF, 0x7F, 0x80)
EDGE32 = (0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)


def off_in(r, m, lo=0):
    return r.randrange(lo, len(m.t)) if len(m.t) > lo else None


def mut_bitflip(r, m, x):
    done = []
    for _ in range(r.randint(1, 4)):
        off = off_in(r, m)
        if off is None:
            break
        bit = 1 << r.randrange(8)
        m.t[off] ^= bit
        done.append(f"{off}^{bit:#x}")
    return "bitflip " + ",".join(done)


def mut_edge_byte(r, m, x):
    off, value = off_in(r, m), r.choice(EDGE_BYTES)
    if off is None:
        return "edge_byte none"
    m.t[off] = value
    return f"edge_byte t[{off}]={value:#x}"


def mut_opcode(r, m, x):
    how = r.randrange(4)
    if how == 0:
        m.t[0] = r.randrange(256)
    elif how == 1:
        m.t[0] = r.choice(list(range(0x18)) + [0x18, 0x1F, 0x24, 0x2A, 0x64, 0x65, 0x80, 0xC0])
    elif how == 2:
        m.t[0] = (m.t[0] + r.choice((-1, 1))) & 0xFF
    else:
        m.t[0] = (m.t[0] & 0x1F) | r.choice((0x20, 0x40, 0x60, 0x80, 0xA0, 0xC0, 0xE0))
    return f"opcode={m.t[0]:#04x}"


def mut_pad(r, m, x):
    pad = r.randrange(4)
    m.t[1] = (m.t[1] & ~0x30) | pad << 4
    return f"pad={pad}"


def mut_bth_bits(r, m, x):
    """TVer, MigReq, SE; P_Key; the byte the ICRC masks (FECN, BECN)."""
    how = r.randrange(4)
    if how == 0:
        m.t[1] = (m.t[1] & 0xF0) | r.randrange(1, 16)
        return f"tver={m.t[1] & 0xF}"
    if how == 1:
        m.t[1] ^= r.choice((0x40, 0x80))
        return f"bth[1]={m.t[1]:#x}"
    if how == 2:
        pkey = r.choice((0x7FFF, 0xFFFF, 0x0000, 0x8000, 0xFFFE, r.randrange(0x10000)))
        m.t[2:4] = struct.pack(">H", pkey)
        return f"pkey={pkey:#x}"
    m.t[4] = r.randrange(256)
    return f"bth[4]={m.t[4]:#x}"


def mut_psn(r, m, x):
    psn = struct.unpack_from(">I", m.t, 8)[0] & 0xFFFFFF
    delta = r.choice((-3, -2, -1, 1, 2, 3, 0x7FFFFF, 0x800000, -0x800000, 0xFFFFFF))
    psn = r.randrange(1 << 24) if r.random() < 0.1 else (psn + delta) & 0xFFFFFF
    m.t[9:12] = psn.to_bytes(3, "big")
    if r.random() < 0.3:
        m.t[8] ^= 0x80
    return f"psn={psn:#x} ackreq={m.t[8] >> 7}"


def mut_qpn(r, m, x):
    qpn = r.choice((x.qpn, x.ud_qpn, GSI_QPN, 0, x.qpn + 1, x.qpn - 1, x.qpn + 2,
                    x.ud_qpn + 1, x.ud_qpn - 1, 0xFFFFFF, r.randrange(1 << 24)))
    m.t[5:8] = (qpn & 0xFFFFFF).to_bytes(3, "big")
    return f"qpn={qpn & 0xFFFFFF:#x}"


def mut_reth(r, m, x):
    """RETH (or AtomicETH) address, R_Key or length at offset 12."""
    field = r.randrange(3)
    if field == 0:
        va = r.choice((0, x.addr - 1, x.addr + x.len - 1, x.addr + x.len, x.addr + x.len - 8,
                       (1 << 64) - 1, 1 << 63, x.addr + 4, x.addr + r.randrange(x.len)))
        struct.pack_into(">Q", m.t, 12, va & ((1 << 64) - 1))
        return f"reth.va={va & ((1 << 64) - 1):#x}"
    if field == 1:
        rkey = r.choice((x.rkey ^ 1, x.rkey ^ 0x100, x.rkey + 0x100, 0, 0xFFFFFFFF,
                         r.randrange(1 << 32)))
        struct.pack_into(">I", m.t, 20, rkey & 0xFFFFFFFF)
        return f"reth.rkey={rkey & 0xFFFFFFFF:#x}"
    length = r.choice(EDGE32 + (x.mtu - 1, x.mtu, x.mtu + 1, x.len, x.len + 1, 1 << 31,
                                r.randrange(1 << 32)))
    struct.pack_into(">I", m.t, 24, length)
    return f"reth.len={length:#x}"


def mut_aeth(r, m, x):
    syndrome = r.choice((r.randrange(256), r.randrange(0x40, 0x60), 0x80 | r.randrange(128),
                         r.randrange(0x60, 0x80), 0x20 | r.randrange(32), r.randrange(32)))
    m.t[12] = syndrome
    if r.random() < 0.3:
        m.t[13:16] = r.choice((0, 1, 0xFFFFFF, r.randrange(1 << 24))).to_bytes(3, "big")
    return f"aeth={syndrome:#04x} msn={int.from_bytes(m.t[13:16], 'big'):#x}"


def mut_atomic(r, m, x):
    va = r.choice((x.addr + 1, x.addr + 4, x.addr + x.len - 8, x.addr + x.len, 0, (1 << 64) - 8))
    struct.pack_into(">QQQ", m.t, 12, va & ((1 << 64) - 1), 0, 0)
    struct.pack_into(">I", m.t, 20, x.rkey)
    struct.pack_into(">QQ", m.t, 24, r.randrange(1 << 64), r.randrange(1 << 64))
    return f"atmeth.va={va & ((1 << 64) - 1):#x}"


def mut_deth(r, m, x):
    how = r.randrange(3)
    if how == 0:
        qkey = r.choice((rc.UD_QKEY, rc.UD_QKEY ^ 1, rc.GSI_QKEY, 0, 0x80000000, 0xFFFFFFFF))
        struct.pack_into(">I", m.t, 12, qkey)
        return f"deth.qkey={qkey:#x}"
    if how == 1:
        src = r.choice((0, 1, 0xFFFFFF, x.qpn, r.randrange(1 << 24)))
        m.t[17:20] = src.to_bytes(3, "big")
        return f"deth.src_qp={src:#x}"
    m.t[16] = r.choice(EDGE_BYTES)
    return f"deth.resv={m.t[16]:#x}"


def mut_truncate(r, m, x):
    keep = r.choice((0, 4, 8, 11, 12, 13, 16, 20, 24, 27, 28, r.randrange(len(m.t) + 1)))
    keep = min(keep, len(m.t))
    del m.t[keep:]
    return f"truncate to {keep}"


def mut_extend(r, m, x):
    n = r.choice((1, 2, 3, 4, 8, x.mtu, x.mtu + 4, r.randint(1, 256)))
    m.t += bytes(r.randrange(256) for _ in range(n))
    return f"extend by {n}"


def mut_payload_len(r, m, x):
    """The payload resized to an MTU edge, the pad count kept consistent."""
    info = opcode_info(m.t[0])
    hdr = info[1] if info else 12
    hdr = min(hdr, len(m.t))
    n = r.choice((0, 1, 3, x.mtu - 1, x.mtu, x.mtu + 1, x.mtu + 4, 2 * x.mtu))
    body, pad = rc.padded(rc.payload_of(n))
    m.t[hdr:] = body
    m.t[1] = (m.t[1] & ~0x30) | pad << 4
    return f"payload {n}"


def mut_ip(r, m, x):
    """IP/UDP header lengths, IPv4 options and fragment bits, masked fields."""
    how = r.randrange(6)
    if how == 0 and m.family == 4:
        n = r.choice((4, 8, 20, 40))
        m.ip_opts = b"\x01" * (n - 1) + r.choice((b"\x00", b"\x01", b"\x94"))
        return f"ipv4 options {n} bytes"
    if how == 1 and m.family == 4:
        m.ihl = r.choice((0, 4, 6, 15))
        return f"ipv4 ihl={m.ihl}"
    if how == 2:
        m.ip_len_delta = r.choice((-4, -1, 1, 4, -(8 + len(m.t) + 4)))
        return f"ip length {m.ip_len_delta:+d}"
    if how == 3:
        m.udp_len_delta = r.choice((-4, -3, -1, 1, 4, -(len(m.t) + 4), -(len(m.t) + 12)))
        return f"udp length {m.udp_len_delta:+d}"
    if how == 4 and m.family == 4:
        m.frag = r.choice((0x2000, 0x0001, 0x2001, 0x8000))
        return f"ipv4 frag={m.frag:#x}"
    off = r.choice((1, 8) if m.family == 4 else (1, 2, 3, 7))
    m.ip_bytes[off] = r.randrange(256)
    return f"ip[{off}]={m.ip_bytes[off]:#x} (masked)"


def mut_bad_icrc(r, m, x):
    m.icrc_xor = 1 << r.randrange(32)
    return f"icrc^{m.icrc_xor:#x}"


# name -> (function, weight, transport bytes it needs: after a truncation
# a header mutation finds nothing to change)
MUTATIONS = {
    "bitflip": (mut_bitflip, 6, 0), "edge_byte": (mut_edge_byte, 4, 0),
    "opcode": (mut_opcode, 4, 1), "pad": (mut_pad, 2, 2), "bth_bits": (mut_bth_bits, 2, 12),
    "psn": (mut_psn, 4, 12), "qpn": (mut_qpn, 2, 12), "reth": (mut_reth, 4, 28),
    "aeth": (mut_aeth, 3, 16), "atomic": (mut_atomic, 1, 40), "deth": (mut_deth, 2, 20),
    "truncate": (mut_truncate, 3, 0), "extend": (mut_extend, 2, 0),
    "payload_len": (mut_payload_len, 3, 12), "ip": (mut_ip, 3, 0),
}


def mutate(name, r, m, x):
    """Apply mutation @name to @m; what it did."""
    fn, _, needs = MUTATIONS[name]
    return fn(r, m, x) if len(m.t) >= needs else f"{name} none (truncated)"


class Generator:
    """Mutant N of a seed, from its own RNG: reproducible one by one."""

    def __init__(self, seed, ipv6):
        self.seed, self.ipv6 = seed, ipv6
        self.seeds = collections.defaultdict(list)     # name -> its packets
        for name, build in BUILT_SEEDS + capture_seeds():
            self.seeds[name].append(build)
        self.seed_names = sorted(self.seeds)
        # Three UD QPs (UD target, GSI) stand beside many RC opcodes: weighted up.
        self.seed_weights = [3 if n[:2] in ("ud", "gs") else 1 for n in self.seed_names]
        self.names = list(MUTATIONS)
        self.weights = [MUTATIONS[n][1] for n in self.names]

    def mutant(self, n, x):
        """(Mutant, seed name, mutation names, description) of mutant @n."""
        r = random.Random(f"{self.seed}:{n}")
        seed_name = r.choices(self.seed_names, self.seed_weights)[0]
        build = r.choice(self.seeds[seed_name])
        family = 6 if self.ipv6 and seed_name[:2] in ("ud", "gs") and \
            r.random() < IPV6_SHARE else 4
        m = Mutant(family, build(x))
        names = r.choices(self.names, self.weights, k=r.choice((1, 1, 2, 2, 3)))
        done = [mutate(name, r, m, x) for name in names]
        if r.random() < BAD_ICRC_SHARE:
            done.append(mut_bad_icrc(r, m, x))
            names.append("bad_icrc")
        desc = f"#{n} {seed_name} ipv{family}: " + "; ".join(done)
        return m, seed_name, names, desc


# --- the fuzzer ------------------------------------------------------------------

def peer_mac(ip):
    """The MAC address the neighbour table has for @ip (after a ping)."""
    out = subprocess.run(["ip", "neigh", "show", ip], capture_output=True, text=True).stdout
    found = re.search(r"lladdr ([0-9a-f:]{17})", out)
    if not found:
        raise SystemExit(f"no neighbour entry for {ip}: ping it first")
    return bytes.fromhex(found.group(1).replace(":", ""))


class Fuzzer:
    def __init__(self, args):
        self.c = rc.Crafter(args)
        self.args = args
        self.gen = Generator(args.seed, bool(args.dst6))
        self.eth = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.eth.bind((args.ifname, 0))
        mine = open(f"/sys/class/net/{args.ifname}/address").read().strip()
        self.mac_hdr = peer_mac(args.dst) + bytes.fromhex(mine.replace(":", ""))
        self.sent, self.unsent = 0, 0
        self.by_seed, self.by_mutation = collections.Counter(), collections.Counter()
        self.restarts, self.replies, self.restart_secs = 0, 0, 0.0
        self.live = None

    def ask(self, line):
        return self.c.ask(line)

    def send_mutant(self, n):
        m, seed_name, names, desc = self.gen.mutant(n, self.live)
        src, dst = (self.args.src6, self.args.dst6) if m.family == 6 else \
            (self.args.src, self.args.dst)
        ethertype = ETH_P_IPV6 if m.family == 6 else ETH_P_IP
        try:
            self.eth.send(self.mac_hdr + struct.pack(">H", ethertype) + m.packet(src, dst))
        except OSError:
            self.unsent += 1        # longer than the link MTU
            return desc + " (not sent: too long)"
        self.sent += 1
        self.by_seed[seed_name] += 1
        self.by_mutation.update(names)
        return desc

    def drain(self):
        """Forget what the targets answered so far; count it."""
        self.c.rx.setblocking(False)
        try:
            while self.c.rx.recv(65535):
                self.replies += 1
        except BlockingIOError:
            pass

    def fresh_rc(self):
        """A new RC target: a valid SEND must get its ACK (the device still
        works after what came before), then it posts a READ so that
        READ responses have a request to answer. Returns a problem or None."""
        started = time.time()
        try:
            return self._fresh_rc()
        finally:
            self.restart_secs += time.time() - started

    def _fresh_rc(self):
        info = self.ask(f"new {rc.FIRST_PSN} {rc.MTU}")
        ud_info = self.live_ud
        self.live = Live(info, ud_info)
        self.restarts += 1
        x = rc.Ctx(self.c, info)
        for _ in range(3):      # the link may drop a frame
            self.drain()
            self.c.send(x.send_only(32))
            replies = [r for r in self.c.replies(1) if r[0] == rc.ACKNOWLEDGE]
            if replies and rc.reply_problem(x, ("ack", 0), replies, rc.FIRST_PSN) is None:
                break
        else:
            return f"a fresh RC QP ({self.live.qpn:#x}) did not ACK a valid SEND"
        self.live.epsn = rc.FIRST_PSN + 1
        self.drain()
        # Every other QP has a READ outstanding, for the READ responses to
        # answer; it times out (and the QP fails) within a second or so.
        if self.restarts % 2 and self.ask(f"read {READ_LEN}") == "0":
            got = [r for r in self.c.replies(1) if r[0] == rc.READ_REQUEST]
            if got:
                self.live.req_psn = rc.ack_of(got[0])[1]
        return None

    def ud_alive(self):
        """The UD target is in RTS and a valid datagram still lands."""
        if int(self.ask("udstate")) != rc.QPS_RTS:
            return "the UD QP left RTS"
        x = rc.Ctx(self.c, f"qpn={self.live.ud_qpn} rkey=0 addr=0 len=0")
        want = f"wc status=0 opcode={rc.IBV_WC_RECV} len={rc.GRH_BYTES + UD_PROBE_LEN} " \
               f"src_qp={rc.CRAFTER_QPN} grh=1"
        for _ in range(3):
            self.ask("udwcs")
            self.c.send(rc.ud_send(x, UD_PROBE_LEN))
            for _ in range(30):
                if want in json.loads(self.ask("udwcs")):
                    return None
                time.sleep(0.1)
        return "the UD QP no longer receives a valid datagram"

    def splats(self):
        return json.loads(self.ask("splats"))

    def check(self, first, n, descs):
        """After mutants first..n-1: splats (fatal) and the RC QP's health."""
        found = self.splats()
        if found:
            print(f"SPLAT after mutants {first}..{n - 1} (seed {self.args.seed}):")
            for line in found[:20]:
                print("  kernel: " + line)
            print("mutants sent since the last clean check:")
            for d in descs:
                print("  " + d)
            print(f"replay: roce_mutate.py fuzz ... --seed {self.args.seed} "
                  f"--replay {first}-{n - 1}")
            return "kernel splat"
        if int(self.ask("state")) == QPS_ERR or n - self.live_since >= RESTART_EVERY:
            self.live_since = n
            return self.fresh_rc()
        return None

    def run(self):
        a = self.args
        self.live_ud = self.ask("newud")
        before = json.loads(self.ask("counters"))
        self.live_since = a.first
        err = self.fresh_rc()
        first, last = a.first, a.first + a.count
        if a.replay:
            lo, _, hi = a.replay.partition("-")
            first, last = int(lo), int(hi or lo) + 1
        print(f"roce_mutate: seed {a.seed}, mutants {first}.., {a.seconds} s at most, "
              f"{sum(map(len, self.gen.seeds.values()))} seeds, RC QP {self.live.qpn:#x}, UD QP "
              f"{self.live.ud_qpn:#x}", flush=True)
        started = time.time()
        deadline = started + a.seconds
        n, batch_first, descs = first, first, []
        while err is None and n < last and time.time() < deadline:
            descs.append(self.send_mutant(n))
            n += 1
            if a.verbose or a.replay:
                print(descs[-1], flush=True)
            if a.replay or n % CHECK_EVERY == 0:
                err = self.check(batch_first, n, descs)
                if err is None and not a.replay:
                    # If the host under test dies, the last of these brackets the culprit.
                    print(f"roce_mutate: clean through #{n - 1} ({self.restarts} RC QPs)",
                          flush=True)
                batch_first, descs = n, []
        if err is None:
            err = self.ud_alive()
            err = self.check(batch_first, n, descs) or err
        self.drain()
        after = json.loads(self.ask("counters"))
        self.ask("bye")
        self.report(n - first, time.time() - started, before, after)
        if err:
            print(f"FAIL: {err}")
            return 1
        print(f"ok: {n - first} mutants, kernel quiet, the device still works")
        return 0

    def report(self, total, secs, before, after):
        print(f"mutants: {total} made in {secs:.0f} s, {self.sent} sent, {self.unsent} too long "
              f"for the link; {self.restarts} RC QPs ({self.restart_secs:.1f} s to set them up "
              f"and check them); {self.replies} packets came back")
        print("by seed: " + ", ".join(f"{k} {v}" for k, v in sorted(self.by_seed.items())))
        print("by mutation: " + ", ".join(f"{k} {v}" for k, v in
                                          sorted(self.by_mutation.items())))
        moved = {k: after[k] - before.get(k, 0) for k in sorted(after)
                 if after[k] != before.get(k, 0)}
        print("counters: " + ", ".join(f"{k} +{v}" for k, v in moved.items()))


def run_show(args):
    x = Live("qpn=17 rkey=4660 addr=65536 len=65536", "qpn=18")
    gen = Generator(args.seed, True)
    lo, _, hi = args.which.partition("-")
    for n in range(int(lo), int(hi or lo) + 1):
        m, _, _, desc = gen.mutant(n, x)
        pkt = m.packet("198.18.0.2", "198.18.0.1") if m.family == 4 else \
            m.packet("fd00:198:18::2", "fd00:198:18::1")
        print(f"{desc}\n  {pkt.hex()}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="role", required=True)
    a = rc.add_agent_parser(sub)
    a.add_argument("--splat", default=r"BUG:|WARNING:|Oops|KASAN:|UBSAN:|Call Trace",
                   help="kernel log lines that count as a splat (tests/vm/lib.sh's SPLAT)")
    f = sub.add_parser("fuzz")
    f.add_argument("--agent", required=True)
    f.add_argument("--src", required=True)
    f.add_argument("--dst", required=True)
    f.add_argument("--src6")
    f.add_argument("--dst6")
    f.add_argument("--ifname", default="eth0")
    f.add_argument("--seed", default=None)
    f.add_argument("--seconds", type=float, default=60)
    f.add_argument("--count", type=int, default=10 ** 9)
    f.add_argument("--first", type=int, default=0)
    f.add_argument("--replay", help="N or N-M: only these mutants, a check after each")
    f.add_argument("-v", "--verbose", action="store_true")
    s = sub.add_parser("show")
    s.add_argument("--seed", required=True)
    s.add_argument("which")
    args = ap.parse_args()
    if args.role == "agent":
        args.target = [t for t in args.target if t != "--"]
        return run_agent(args)
    if args.role == "show":
        return run_show(args)
    if args.seed is None:
        args.seed = f"{random.SystemRandom().randrange(1 << 32):#x}"
    return Fuzzer(args).run()


if __name__ == "__main__":
    sys.exit(main())
