#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkvmlinux.sh BZIMAGE OUT
#
# Extract the uncompressed ELF kernel from a bzImage so QEMU can boot it
# directly through its PVH entry point. Under TCG this skips the firmware and
# the in-guest decompression (xz, zstd), ~3.5 s of every boot. If no payload
# decompresses to an ELF with a PVH note (kernels without CONFIG_PVH), OUT is
# left empty, which tells vm-run (and its cache) to boot the bzImage.
set -euo pipefail

# Byte offsets of the compressed-payload magics in $1, with the tool that
# decompresses each (gzip, xz, zstd, lz4).
payloads() {
	local magic tool

	while read -r magic tool; do
		{ LC_ALL=C grep -obUaP "$magic" "$1" || true; } | cut -d: -f1 | sed "s/\$/ $tool/"
	done <<- 'MAGIC'
	\x1f\x8b\x08 gzip
	\xfd7zXZ\x00 xz
	\x28\xb5\x2f\xfd zstd
	\x02\x21\x4c\x18 lz4
	MAGIC
}

# XEN_ELFNOTE_PHYS32_ENTRY (18) is the PVH entry point QEMU looks for.
is_pvh_elf() {
	[ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] &&
		[[ $(readelf -n "$1" 2>/dev/null) == *"Xen"*"(0x00000012)"* ]]
}

main() {
	local img=$1 out=$2 off tool

	while read -r off tool; do
		# Trailing data after the payload makes the tools complain: ignore.
		tail -c +$((off + 1)) "$img" | $tool -dc 2>/dev/null > "$out.tmp" || true
		if is_pvh_elf "$out.tmp"; then
			mv "$out.tmp" "$out"
			return 0
		fi
	done < <(payloads "$img")
	rm -f "$out.tmp"
	echo "mkvmlinux: no PVH-bootable ELF inside $img, booting it as is" >&2
	: > "$out"
}

main "$@"
