#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkmoddir.sh RELEASE SROCE_KO BUILTIN_DIR OUT   (SROCE_KO, BUILTIN_DIR may be "")
#
# Prepare on the host what the guest lays over /lib/modules/RELEASE:
# updates/sroce.ko and the module indexes depmod computes with it. depmod over
# a whole Debian module tree takes ~30 s under TCG but ~1 s (6.1) to ~12 s
# (6.12, .ko.xz) natively, and vm-run caches the result per module build.
# BUILTIN_DIR supplies modules.builtin{,.modinfo} for a kernel that has no
# module tree on the host (the debug kernel).
set -euo pipefail

main() {
	local rel=$1 ko=$2 builtin=$3 out=$4 stage moddir f

	stage=$out.tmp
	rm -rf "$stage"
	moddir=$stage/lib/modules/$rel
	mkdir -p "$moddir/updates"
	# The stock tree, by reference: depmod follows the links.
	for f in /lib/modules/"$rel"/*; do
		[ -e "$f" ] || continue
		case "$f" in */modules.*) ;; *) ln -s "$f" "$moddir/" ;; esac
	done
	cp /lib/modules/"$rel"/modules.{builtin,builtin.modinfo,order} "$moddir/" 2>/dev/null || true
	if [ -n "$builtin" ]; then
		cp "$builtin"/modules.builtin* "$moddir/" 2>/dev/null || true
	fi
	[ -n "$ko" ] && [ -f "$ko" ] && cp "$ko" "$moddir/updates/sroce.ko"
	depmod -b "$stage" "$rel"
	# Keep only what the guest copies: indexes and updates/.
	find "$moddir" -maxdepth 1 -type l -delete
	rm -rf "$out"
	mv "$moddir" "$out"
	rm -rf "$stage"
}

main "$@"
