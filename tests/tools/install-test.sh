#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-test.sh KVER... - the two ways README gives to install sroce, on
# the host, into private directories (nothing touches /lib/modules, /usr or
# /var/lib/dkms's tree). Per kernel:
#   install-KVER  `make install DESTDIR=D KVER=KVER`: sroce.ko (compressed
#                 like the kernel's modules, if they are) under
#                 D/lib/modules/KVER/updates/drivers/infiniband/sw/sroce/,
#                 built for KVER, in D's modules.dep; the provider and its
#                 .driver file where libibverbs looks; `make uninstall`
#                 takes every one of them away again
#   dkms-KVER     `dkms build` of this tree as dkms.conf describes it: a
#                 sroce.ko for KVER that needs the same modules as ours
# Appends "install\t<case>\tPASS|FAIL\t<why>" to $SROCE_RESULTS after an
# #expect line; exits 1 if a case failed. Logs: build/logs/install-*.log.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RESULTS=${SROCE_RESULTS:-/dev/null}
LOGDIR=$TOP/build/logs
SROCE_DIR=drivers/infiniband/sw/sroce
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FAILED=0

result() {
	printf 'install\t%s\t%s\t%s\n' "$1" "$2" "$(printf '%s' "${3:-}" | tr '\t\n' '  ' | cut -c1-300)" |
		tee -a "$RESULTS"
	[ "$2" != FAIL ] || FAILED=1
}

# built_for KO KVER: KO is a module for kernel KVER.
built_for() {
	local magic

	magic=$(modinfo -F vermagic "$1" 2>/dev/null) || { echo "modinfo cannot read $1"; return 1; }
	[ "${magic%% *}" = "$2" ] || { echo "$1 is built for '${magic%% *}', not $2"; return 1; }
}

# What libibverbs needs to find the provider, under DESTDIR $1.
provider_files() {
	local libdir

	libdir=/usr/lib/$(gcc -print-multiarch)
	echo "$1$libdir/libibverbs/libsroce-rdmav34.so"
	echo "$1/etc/libibverbs.d/sroce.driver"
}

t_install() {
	local k=$1 dest=$WORK/root-$1 log=$LOGDIR/install-$1.log ko f left

	make -C "$TOP" --no-print-directory install DESTDIR="$dest" KVER="$k" > "$log" 2>&1 ||
		{ echo "make install failed (log: ${log#"$TOP"/})"; return 1; }
	# Compressed the way the kernel's own modules are (6.12: .ko.xz).
	ko=$(find "$dest/lib/modules/$k/updates/$SROCE_DIR" -name 'sroce.ko*' 2>/dev/null | head -n 1)
	[ -n "$ko" ] || { echo "no /lib/modules/$k/updates/$SROCE_DIR/sroce.ko*"; return 1; }
	built_for "$ko" "$k" || return 1
	grep -q "^updates/$SROCE_DIR/${ko##*/}:" "$dest/lib/modules/$k/modules.dep" ||
		{ echo "depmod did not list sroce.ko in modules.dep"; return 1; }
	for f in $(provider_files "$dest"); do
		[ -f "$f" ] || { echo "no ${f#"$dest"}"; return 1; }
	done
	grep -qx 'driver sroce' "$dest/etc/libibverbs.d/sroce.driver" ||
		{ echo "sroce.driver does not say 'driver sroce'"; return 1; }
	make -C "$TOP" --no-print-directory uninstall DESTDIR="$dest" KVER="$k" >> "$log" 2>&1 ||
		{ echo "make uninstall failed (log: ${log#"$TOP"/})"; return 1; }
	# depmod's own index files stay; nothing of ours may.
	left=$(find "$dest" -type f ! -name 'modules.*' | sed "s#^$dest##" | head -n 3)
	[ -z "$left" ] || { echo "make uninstall left $(echo $left)"; return 1; }
}

t_dkms() {
	local k=$1 log=$LOGDIR/dkms-$1.log version src ko ours

	command -v dkms > /dev/null || { echo "dkms not installed (tests/tools/setup.sh installs it)"; return 1; }
	version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
	[ -n "$version" ] || { echo "dkms.conf has no PACKAGE_VERSION"; return 1; }
	# The tree as a user has it: the committed files plus what is changed.
	src=$WORK/dkms-src-$k/sroce-$version
	mkdir -p "$src" "$WORK/dkms-tree-$k"
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src") ||
		{ echo "cannot copy the tree"; return 1; }
	dkms --dkmstree "$WORK/dkms-tree-$k" --sourcetree "$WORK/dkms-src-$k" \
		build -m sroce -v "$version" -k "$k" > "$log" 2>&1 ||
		{ echo "dkms build failed: $(grep -m1 -iE 'error' "$log" | cut -c1-120) (log: ${log#"$TOP"/})"; return 1; }
	ko=$(find "$WORK/dkms-tree-$k/sroce/$version/$k" -name 'sroce.ko*' | head -n 1)
	[ -n "$ko" ] || { echo "dkms build left no sroce.ko (log: ${log#"$TOP"/})"; return 1; }
	built_for "$ko" "$k" || return 1
	ours=$TOP/build/$k/sroce.ko
	[ -f "$ours" ] || { echo "$ours not built to compare with"; return 1; }
	[ "$(modinfo -F depends "$ko")" = "$(modinfo -F depends "$ours")" ] ||
		{ echo "dkms's sroce.ko depends on '$(modinfo -F depends "$ko")', ours on '$(modinfo -F depends "$ours")'"; return 1; }
}

run_case() {
	local why

	if why=$("t_$1" "$2" 2>&1); then
		result "$1-$2" PASS
	else
		result "$1-$2" FAIL "${why:-no reason printed}"
	fi
}

main() {
	local k

	[ $# -gt 0 ] || { echo "usage: install-test.sh KVER..." >&2; exit 2; }
	mkdir -p "$LOGDIR"
	printf '#expect\tinstall\t%d\n' $((2 * $#)) >> "$RESULTS"
	for k in "$@"; do
		run_case install "$k"
		run_case dkms "$k"
	done
	return "$FAILED"
}

main "$@"
