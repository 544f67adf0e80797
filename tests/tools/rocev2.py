# SPDX-License-Identifier: GPL-2.0
"""RoCEv2 on the wire, written from the specification, independently of the
module: the ICRC rule, the transport header sizes of every opcode, and a
reader for pcap/pcapng captures. Shared by the test tools:

  pcap2kunit.py      golden vectors for KUnit
  roce_pcap_check.py the capture judge of the VM tests
  roce_craft.py      the hand-crafted packet tests
  roce_mutate.py     the packet fuzzer

References: IBA vol. 1 chapter 9 (BTH 9.2, extended headers 9.3-9.5, ICRC
7.8.1) and the RoCEv2 annex A17 (A17.4: UDP port 4791, A17.8.1: ICRC over
the IP and UDP headers with the variant fields masked).
"""
import struct
import zlib

ROCEV2_PORT = 4791
BTH_BYTES = 12
ICRC_BYTES = 4

# Extended header sizes (IBA vol. 1 9.3-9.5)
RDETH, DETH, RETH, ATMETH, AETH, ATMACK, IMMDT, IETH = 4, 8, 16, 28, 4, 8, 4, 4

# Opcode (low five bits) -> (name, extended header bytes, carries payload),
# for RC (IBA vol. 1 table 38). UC uses the SEND/WRITE rows, UD only SEND ONLY.
RC_OPCODES = {
    0x00: ("SEND_FIRST", 0, True),
    0x01: ("SEND_MIDDLE", 0, True),
    0x02: ("SEND_LAST", 0, True),
    0x03: ("SEND_LAST_IMM", IMMDT, True),
    0x04: ("SEND_ONLY", 0, True),
    0x05: ("SEND_ONLY_IMM", IMMDT, True),
    0x06: ("WRITE_FIRST", RETH, True),
    0x07: ("WRITE_MIDDLE", 0, True),
    0x08: ("WRITE_LAST", 0, True),
    0x09: ("WRITE_LAST_IMM", IMMDT, True),
    0x0A: ("WRITE_ONLY", RETH, True),
    0x0B: ("WRITE_ONLY_IMM", RETH + IMMDT, True),
    0x0C: ("READ_REQUEST", RETH, False),
    0x0D: ("READ_RESPONSE_FIRST", AETH, True),
    0x0E: ("READ_RESPONSE_MIDDLE", 0, True),
    0x0F: ("READ_RESPONSE_LAST", AETH, True),
    0x10: ("READ_RESPONSE_ONLY", AETH, True),
    0x11: ("ACKNOWLEDGE", AETH, False),
    0x12: ("ATOMIC_ACKNOWLEDGE", AETH + ATMACK, False),
    0x13: ("COMPARE_SWAP", ATMETH, False),
    0x14: ("FETCH_ADD", ATMETH, False),
    0x16: ("SEND_LAST_INV", IETH, True),
    0x17: ("SEND_ONLY_INV", IETH, True),
}
UC_OPCODES = {op: row for op, row in RC_OPCODES.items() if op <= 0x0B and op != 0x0C}
UD_OPCODES = {0x04: ("SEND_ONLY", DETH, True), 0x05: ("SEND_ONLY_IMM", DETH + IMMDT, True)}
TRANSPORTS = {0x00: ("RC", RC_OPCODES), 0x20: ("UC", UC_OPCODES), 0x60: ("UD", UD_OPCODES)}


def opcode_info(opcode):
    """(name, header bytes from the BTH on, has payload), or None if unknown."""
    transport = TRANSPORTS.get(opcode & 0xE0)
    if not transport:
        return None
    row = transport[1].get(opcode & 0x1F)
    if not row:
        return None
    return (f"{transport[0]}_{row[0]}", BTH_BYTES + row[1], row[2])


def icrc_of(ip):
    """ICRC of a RoCEv2 packet given from its IP header up to (without) the
    ICRC: CRC-32 over 8 bytes of ones (standing in for the LRH), then the
    packet with the fields routers may change set to ones: IPv4 TOS, TTL and
    header checksum, or IPv6 traffic class, flow label and hop limit; the UDP
    checksum; the BTH byte holding FECN, BECN and reserved bits."""
    m = bytearray(ip)
    if ip[0] >> 4 == 4:
        ihl = (ip[0] & 0xF) * 4
        m[1] = 0xFF
        m[8] = 0xFF
        m[10:12] = b"\xff\xff"
    else:
        ihl = 40
        m[0] |= 0x0F
        m[1:4] = b"\xff\xff\xff"
        m[7] = 0xFF
    m[ihl + 6:ihl + 8] = b"\xff\xff"
    m[ihl + 8 + 4] = 0xFF
    return zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF


def with_icrc(ip_without_icrc):
    """The packet with its ICRC appended (least significant byte first)."""
    return ip_without_icrc + struct.pack("<I", icrc_of(ip_without_icrc))


# --- captures -------------------------------------------------------------

LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_SLL, LINKTYPE_SLL2 = 1, 101, 113, 276


def _pcap_records(data):
    magic = struct.unpack_from("<I", data)[0]
    e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    linktype = struct.unpack_from(e + "I", data, 20)[0]
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from(e + "I", data, off + 8)[0]
        off += 16
        yield linktype, data[off:off + incl]
        off += incl


def _pcapng_records(data):
    e = "<"
    links = []
    off = 0
    while off + 12 <= len(data):
        btype = struct.unpack_from(e + "I", data, off)[0]
        if btype == 0x0A0D0D0A:             # section header: byte order
            e = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            links = []
        blen = struct.unpack_from(e + "I", data, off + 4)[0]
        if blen < 12:
            raise ValueError(f"pcapng: bad block length at {off}")
        if btype == 1:                      # interface description
            links.append(struct.unpack_from(e + "H", data, off + 8)[0])
        elif btype == 6:                    # enhanced packet
            iface, _, _, caplen = struct.unpack_from(e + "IIII", data, off + 8)
            yield links[iface], data[off + 28:off + 28 + caplen]
        elif btype == 3:                    # simple packet
            yield links[0], data[off + 12:off + blen - 4]
        off += blen


def capture_records(path):
    """(linktype, frame bytes) of every packet in a pcap or pcapng file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        return list(_pcapng_records(data))
    return list(_pcap_records(data))


def frame_ip(linktype, frame):
    """The IP packet inside a captured frame, or None (not IP)."""
    if linktype == LINKTYPE_ETHERNET:
        ethertype, off = frame[12:14], 14
        if ethertype == b"\x81\x00":        # one VLAN tag
            ethertype, off = frame[16:18], 18
    elif linktype == LINKTYPE_SLL:
        ethertype, off = frame[14:16], 16
    elif linktype == LINKTYPE_SLL2:
        ethertype, off = frame[0:2], 20
    elif linktype == LINKTYPE_RAW:
        return frame if frame and frame[0] >> 4 in (4, 6) else None
    else:
        return None
    if ethertype in (b"\x08\x00", b"\x86\xdd"):
        return frame[off:]
    return None


def rocev2_of(ip):
    """(ip packet trimmed to its length, offset of the UDP header) if @ip is
    UDP to port 4791, else None."""
    if len(ip) >= 20 and ip[0] >> 4 == 4:
        ihl = (ip[0] & 0xF) * 4
        total = struct.unpack_from(">H", ip, 2)[0]
        proto = ip[9]
    elif len(ip) >= 40 and ip[0] >> 4 == 6:
        ihl = 40
        total = 40 + struct.unpack_from(">H", ip, 4)[0]
        proto = ip[6]
    else:
        return None
    if proto != 17 or len(ip) < ihl + 8:
        return None
    if struct.unpack_from(">H", ip, ihl + 2)[0] != ROCEV2_PORT:
        return None
    return ip[:total], ihl
