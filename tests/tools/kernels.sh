#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The supported Debian kernels (6.1 and 6.12, amd64) installed here, oldest
# first, one release string per line (e.g. 6.1.0-57-amd64, 6.12.95+deb12-amd64):
#
#   kernels.sh             every one with headers: what `make` builds sroce.ko for
#   kernels.sh --test      the ones the VM suite runs on: of each series, the
#                          newest that can boot (image in /boot and its module
#                          tree, not only headers)
#   kernels.sh --untested  the built ones the suite leaves out, each with why
#                          ("KVER<TAB>reason")
#   kernels.sh --default   the kernel `make` and vm-run use when none is given:
#                          the running kernel if its build tree exists, else the
#                          newest bootable one, else the newest with headers
#
# Why one kernel a series: the suite takes ~20 minutes a kernel on 2 cores.
# A second 6.1 (e.g. headers that the dkms package pulled in through
# linux-headers-amd64, or an older ABI left by an upgrade) is built, so
# warnings and build breaks still show, and named as untested.
#
# SROCE_KERNELS_ROOT (tests only, kernels-selftest.sh): look under that
# directory instead of / for boot/ and lib/modules/.
set -euo pipefail

ROOT=${SROCE_KERNELS_ROOT:-}

with_headers() {
	local dir

	for dir in "$ROOT"/lib/modules/*/build; do
		[ -e "$dir/Makefile" ] || continue
		basename "$(dirname "$dir")"
	done | { grep -E '^6\.(1|12)\.[0-9]+.*-amd64$' || true; } | sort -V
}

bootable() {
	[ -e "$ROOT/boot/vmlinuz-$1" ] && [ -d "$ROOT/lib/modules/$1/kernel" ]
}

series() { cut -d. -f1,2 <<< "$1"; }

# newest_of SERIES: the line of standard input in that series.
newest_of() {
	local k

	while read -r k; do
		[ "$(series "$k")" = "$1" ] && echo "$k"
	done
}

# The newest bootable kernel of each series.
tested() {
	local k
	local -A newest=()

	for k in $(with_headers); do
		bootable "$k" && newest[$(series "$k")]=$k
	done
	for k in "${newest[@]}"; do
		echo "$k"
	done | sort -V
}

untested() {
	local k picked

	picked=$(tested)
	for k in $(with_headers); do
		grep -qxF "$k" <<< "$picked" && continue
		if ! bootable "$k"; then
			printf '%s\theaders only: no /boot/vmlinuz-%s or module tree to boot\n' "$k" "$k"
		else
			printf '%s\tnot the newest bootable %s kernel here (%s is tested)\n' "$k" \
				"$(series "$k")" "$(newest_of "$(series "$k")" <<< "$picked")"
		fi
	done
}

default_kernel() {
	if [ -e "$ROOT/lib/modules/$(uname -r)/build/Makefile" ]; then
		uname -r
	elif [ -n "$(tested)" ]; then
		tested | tail -n 1
	else
		with_headers | tail -n 1
	fi
}

case "${1:-}" in
'') with_headers ;;
--test) tested ;;
--untested) untested ;;
--default) default_kernel ;;
*) echo "usage: kernels.sh [--test|--untested|--default]" >&2; exit 2 ;;
esac
