#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a capture of RoCEv2 traffic with two decoders that share nothing
with sroce:

1. this script (tests/tools/rocev2.py): every packet to UDP port 4791 must
   have a known transport version and opcode, lengths that agree (IP, UDP,
   headers of its opcode, pad count, ICRC), and an ICRC equal to the one
   recomputed here with zlib over the masked invariant fields;
2. tshark's InfiniBand dissector: it must decode every such packet as
   InfiniBand and report no malformed packet and no expert error (its
   guesses at upper-layer protocols inside the payload are turned off).

Usage:
  roce_pcap_check.py [--from IP[:MIN]]... [--opcode NAME[:MIN]]... [--min N] CAPTURE...
      --from IP:MIN  at least MIN packets (default 1) must come from IP, so a
                     test can insist on checking both what sroce sends and
                     what it receives
      --opcode NAME:MIN  at least MIN packets (default 1) of opcode NAME as
                     the summary line prints it (RC_SEND_FIRST, UD_SEND_ONLY,
                     ...), or of "GSI": packets to QP 1, the MADs, so a test
                     can insist on what the capture must hold
  roce_pcap_check.py --selftest
      the shared rdma_rxe capture must pass; copies with a payload byte
      flipped or a packet truncated must fail; a copy with a masked field
      (TTL) changed must still pass.

Exit status 0 when every capture passes, 1 otherwise.
"""
import argparse
import ipaddress
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections import Counter

from rocev2 import BTH_BYTES, ICRC_BYTES, capture_records, frame_ip, icrc_of, opcode_info, rocev2_of

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(TOP, "tests", "data", "rxe-6.1-rc-sample.pcap")


def source_of(ip):
    raw = ip[12:16] if ip[0] >> 4 == 4 else ip[8:24]
    return str(ipaddress.ip_address(raw))


def packet_errors(ip, udp_off):
    """What is wrong with one RoCEv2 packet (IP header first), as strings."""
    udp_len = struct.unpack_from(">H", ip, udp_off + 4)[0]
    if udp_off + udp_len != len(ip):
        return [f"UDP length {udp_len} does not match the IP length"]
    bth_off = udp_off + 8
    transport_len = udp_len - 8
    if transport_len < BTH_BYTES + ICRC_BYTES:
        return [f"{transport_len} bytes cannot hold a BTH and an ICRC"]
    opcode, flags = ip[bth_off], ip[bth_off + 1]
    info = opcode_info(opcode)
    errors = []
    if flags & 0x0F:
        errors.append(f"BTH transport version {flags & 0xF}")
    if not info:
        return errors + [f"unknown opcode {opcode:#04x}"]
    name, hdr_len, has_payload = info
    body = transport_len - hdr_len - ICRC_BYTES
    pad = (flags >> 4) & 3
    if body < 0:
        return errors + [f"{name}: {transport_len} bytes, headers alone need {hdr_len + ICRC_BYTES}"]
    if body % 4:
        errors.append(f"{name}: payload + pad of {body} bytes is not a multiple of 4")
    if pad > body or (body and not has_payload):
        errors.append(f"{name}: {body} bytes after the headers with pad count {pad}")
    stored = struct.unpack("<I", ip[-ICRC_BYTES:])[0]
    computed = icrc_of(ip[:-ICRC_BYTES])
    if stored != computed:
        errors.append(f"{name}: ICRC {stored:#010x}, computed {computed:#010x}")
    return errors


GSI_QPN = 1


def python_judge(path):
    """(packets per source, opcodes seen (and "GSI": packets to QP 1), error
    lines) of one capture."""
    sources, opcodes, errors = Counter(), Counter(), []
    for n, (linktype, frame) in enumerate(capture_records(path), 1):
        ip = frame_ip(linktype, frame)
        found = rocev2_of(ip) if ip else None
        if not found:
            continue
        ip, udp_off = found
        sources[source_of(ip)] += 1
        if len(ip) >= udp_off + 8 + BTH_BYTES:
            info = opcode_info(ip[udp_off + 8])
            opcodes[info[0] if info else f"{ip[udp_off + 8]:#04x}"] += 1
            if int.from_bytes(ip[udp_off + 8 + 5:udp_off + 8 + 8], "big") == GSI_QPN:
                opcodes["GSI"] += 1
        errors += [f"frame {n}: {e}" for e in packet_errors(ip, udp_off)]
    return sources, opcodes, errors


def payload_heuristics_off():
    """Options that stop tshark from guessing upper-layer protocols (RPC over
    RDMA, iSER, SMB Direct...) in the payload: perftest's bytes are not
    those, and a guess gone wrong is not a transport error."""
    out = subprocess.run(["tshark", "-G", "heuristic-decodes"], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    opts = []
    for line in out.stdout.splitlines():
        fields = line.split("\t")
        if len(fields) == 3 and fields[0] == "infiniband.payload" and \
                fields[2] == "T" and fields[1] != "ethertype" and \
                not fields[1].startswith("infiniband"):
            opts += ["--disable-protocol", fields[1]]
    return opts


EXPERT_ERROR = 0x800000        # tshark's PI_ERROR severity


def tshark_judge(path, expected):
    """Error lines from tshark's reading of the capture (one pass)."""
    out = subprocess.run(["tshark", "-n", *payload_heuristics_off(), "-r", path,
                          "-T", "fields", "-E", "separator=/t", "-e", "frame.number",
                          "-e", "udp.dstport", "-e", "infiniband.bth.opcode",
                          "-e", "_ws.expert.severity", "-e", "_ws.malformed"],
                         check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)
    errors, decoded = [], 0
    for line in out.stdout.splitlines():
        frame, ports, opcode, severities, malformed = (line.split("\t") + [""] * 5)[:5]
        decoded += bool(opcode)
        if "4791" in ports.split(",") and not opcode:
            errors.append(f"tshark: frame {frame} not decoded as InfiniBand")
        if malformed or any(int(v) >= EXPERT_ERROR for v in severities.split(",") if v):
            errors.append(f"tshark: frame {frame}: malformed or expert error {malformed}")
    if decoded != expected:
        errors.append(f"tshark decoded {decoded} InfiniBand packets, this script {expected}")
    return errors


def check(path, wanted_from, minimum, quiet=False, wanted_opcodes=()):
    sources, opcodes, errors = python_judge(path)
    total = sum(sources.values())
    errors += tshark_judge(path, total)
    if total < minimum:
        errors.append(f"{total} RoCEv2 packets, expected at least {minimum}")
    for addr, least in wanted_from:
        if sources[addr] < least:
            errors.append(f"{sources[addr]} packets from {addr}, expected at least {least}")
    for name, least in wanted_opcodes:
        if opcodes[name] < least:
            errors.append(f"{opcodes[name]} {name} packets, expected at least {least}")
    if not quiet:
        for e in errors[:20]:
            print(f"  {e}")
        per_source = ", ".join(f"{n} from {a}" for a, n in sorted(sources.items()))
        print(f"roce_pcap_check: {path}: {total} RoCEv2 packets ({per_source}), "
              f"{len(opcodes)} opcodes, {'FAIL' if errors else 'ok'}: "
              f"{len(errors)} errors (ICRC, lengths, tshark malformed/expert)")
        print("  opcodes: " + ", ".join(f"{k} {v}" for k, v in sorted(opcodes.items())))
    return not errors


# --- self test ------------------------------------------------------------

def rewrite_pcap(src, dst, edit):
    """Copy a classic pcap, letting edit(n, frame) return a new frame."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    out, off, n = bytearray(data[:24]), 24, 0
    while off + 16 <= len(data):
        hdr = bytearray(data[off:off + 16])
        incl = struct.unpack_from("<I", hdr, 8)[0]
        n += 1
        frame = edit(n, bytes(data[off + 16:off + 16 + incl]))
        struct.pack_into("<II", hdr, 8, len(frame), len(frame))
        out += hdr + frame
        off += 16 + incl
    with open(dst, "wb") as f:
        f.write(out)


def flip_payload(n, frame):
    if n != 3:
        return frame
    f = bytearray(frame)
    f[200] ^= 0x01                      # inside the SEND payload
    return bytes(f)


def change_ttl(n, frame):
    if n != 3:
        return frame
    f = bytearray(frame)
    f[14 + 8] = 1                       # IPv4 TTL: masked, ICRC unchanged
    f[14 + 10:14 + 12] = b"\0\0"        # keep the IP checksum valid for tshark
    s = sum(struct.unpack(">10H", bytes(f[14:34])))
    s = (s & 0xFFFF) + (s >> 16)
    f[14 + 10:14 + 12] = struct.pack(">H", ~((s & 0xFFFF) + (s >> 16)) & 0xFFFF)
    return bytes(f)


def truncate(n, frame):
    # A WRITE FIRST (frame 25) cut inside its RETH; IP and UDP lengths say so.
    if n != 25:
        return frame
    f = bytearray(frame[:14 + 20 + 8 + 12 + 8])
    struct.pack_into(">H", f, 14 + 2, len(f) - 14)
    struct.pack_into(">H", f, 14 + 20 + 4, len(f) - 14 - 20)
    return bytes(f)


def selftest():
    ok = check(SAMPLE, [("198.18.0.1", 10), ("198.18.0.2", 10)], 78,
               wanted_opcodes=[("RC_READ_REQUEST", 6)])
    # The RC-only sample holds no MAD: asking for one must fail.
    no_mad = not check(SAMPLE, [], 1, quiet=True, wanted_opcodes=[("GSI", 1)])
    print(f"selftest: --opcode GSI on an RC-only capture: judged "
          f"{'bad' if no_mad else 'good'}: {'ok' if no_mad else 'WRONG'}")
    ok = ok and no_mad
    tmp = tempfile.mkdtemp(prefix="roce_pcap_check.")
    try:
        cases = [("flipped payload byte", flip_payload, False),
                 ("truncated WRITE FIRST", truncate, False),
                 ("TTL changed (masked field)", change_ttl, True)]
        for name, edit, must_pass in cases:
            path = os.path.join(tmp, edit.__name__ + ".pcap")
            rewrite_pcap(SAMPLE, path, edit)
            passed = check(path, [], 1, quiet=True)
            verdict = "ok" if passed == must_pass else "WRONG"
            print(f"selftest: {name}: judged {'good' if passed else 'bad'}: {verdict}")
            ok = ok and passed == must_pass
    finally:
        shutil.rmtree(tmp)
    print(f"selftest: {'PASS' if ok else 'FAIL'}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("captures", nargs="*")
    ap.add_argument("--from", dest="wanted", action="append", default=[],
                    metavar="IP[:MIN]")
    ap.add_argument("--opcode", dest="opcodes", action="append", default=[],
                    metavar="NAME[:MIN]")
    ap.add_argument("--min", type=int, default=1)
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    if args.selftest:
        return 0 if selftest() else 1
    if not args.captures:
        ap.error("no capture given")
    wanted = []
    for w in args.wanted:
        addr, _, least = w.partition(":") if w.count(":") == 1 else (w, "", "")
        wanted.append((addr, int(least or 1)))
    opcodes = []
    for o in args.opcodes:
        name, _, least = o.partition(":")
        opcodes.append((name, int(least or 1)))
    results = [check(path, wanted, args.min, wanted_opcodes=opcodes)
               for path in args.captures]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
