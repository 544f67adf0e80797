#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KVER OUT
#
# Build the tiny initramfs vm-run boots: static busybox, the stage-1 init and
# the few modules every guest needs: the host's root over virtio-9p, overlay
# (for /lib/modules) and virtio_net. Everything else is loaded later with the
# real modprobe from the host tree, so this image rarely needs rebuilding.
#
# Modules come from $SROCE_MODROOT/lib/modules/KVER (SROCE_MODROOT is empty
# for stock kernels); missing ones (built in, or no module tree at all as with
# the debug kernel) are simply left out; init tolerates it.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# The PCI transport, the 9p transport and filesystem, then what stage 2
# would otherwise modprobe through 9p on every boot.
ROOT_MODULES=(virtio_pci 9pnet_virtio 9p overlay virtio_net)

# Print the modules.dep line of module $1 ("path: dep dep...") or nothing.
dep_line() {
	grep -E "(^|/)$1\.ko(\.[a-z]+)?:" "$MODDIR/modules.dep" | head -n 1
}

# Print module paths in load order: dependencies first, each once.
# modules.dep lists the full closure with the deepest dependency last.
load_order() {
	local mod line path deps i

	for mod in "${ROOT_MODULES[@]}"; do
		line=$(dep_line "$mod")
		[ -n "$line" ] || continue
		path=${line%%:*}
		read -r -a deps <<< "${line#*:}"
		for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
			echo "${deps[i]}"
		done
		echo "$path"
	done | awk '!seen[$0]++'
}

# Copy one module into the image, decompressed: busybox insmod can't do xz/zst.
add_module() {
	local src=$MODDIR/$1 name

	name=$(basename "$1" | sed -E 's/\.ko(\.[a-z]+)?$/.ko/')
	case "$1" in
	*.xz) xz -dc "$src" > "$STAGE/modules/$name" ;;
	*.zst) zstd -qdc "$src" > "$STAGE/modules/$name" ;;
	*.gz) gzip -dc "$src" > "$STAGE/modules/$name" ;;
	*) cp "$src" "$STAGE/modules/$name" ;;
	esac
	echo "$name" >> "$STAGE/modules/order"
}

main() {
	local kver=$1 out=$2 path

	MODDIR=${SROCE_MODROOT:-}/lib/modules/$kver
	STAGE=$(mktemp -d)
	trap 'rm -rf "$STAGE"' EXIT
	mkdir -p "$STAGE"/{bin,dev,proc,sys,newroot,modules}
	: > "$STAGE/modules/order"
	cp /bin/busybox "$STAGE/bin/busybox"
	ln -s busybox "$STAGE/bin/sh"
	install -m 0755 "$HERE/init" "$STAGE/init"
	if [ -e "$MODDIR/modules.dep" ]; then
		for path in $(load_order); do
			add_module "$path"
		done
	fi
	mkdir -p "$(dirname "$out")"
	(cd "$STAGE" && find . -print0 | cpio --null -o -H newc --quiet) > "$out.tmp"
	mv "$out.tmp" "$out"
}

main "$@"
