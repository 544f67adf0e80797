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
# module tree in /lib/modules (the debug kernel); its modules, if any, come
# from $SROCE_MODROOT/lib/modules/RELEASE and are linked to, not copied.
set -euo pipefail

main() {
	local rel=$1 ko=$2 builtin=$3 out=$4 stage moddir f
	local tree=${SROCE_MODROOT:-}/lib/modules/$rel

	stage=$out.tmp
	rm -rf "$stage"
	moddir=$stage/lib/modules/$rel
	mkdir -p "$moddir/updates"
	# The stock tree, by reference: depmod follows the links.
	for f in "$tree"/*; do
		[ -e "$f" ] || continue
		case "$f" in */modules.*) ;; *) ln -s "$f" "$moddir/" ;; esac
	done
	cp "$tree"/modules.{builtin,builtin.modinfo,order} "$moddir/" 2>/dev/null || true
	if [ -n "$builtin" ]; then
		cp "$builtin"/modules.builtin* "$moddir/" 2>/dev/null || true
	fi
	[ -n "$ko" ] && [ -f "$ko" ] && cp "$ko" "$moddir/updates/sroce.ko"
	depmod -b "$stage" "$rel"
	# The guest's /lib/modules already has the stock tree: drop links to it.
	# Links elsewhere (a debug kernel's modroot) stay, the guest follows them.
	for f in "$moddir"/*; do
		[ -L "$f" ] && [[ $(readlink "$f") == /lib/modules/* ]] && rm "$f"
	done
	rm -rf "$out"
	mv "$moddir" "$out"
	rm -rf "$stage"
}

main "$@"
