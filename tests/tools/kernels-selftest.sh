#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernels.sh on made-up /boot and /lib/modules trees: which kernels are
# built, which the VM suite boots, and which are named untested and why.
# Exits non-zero with the first wrong answer.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
export SROCE_KERNELS_ROOT=$ROOT

# kernel KVER headers|image|both
kernel() {
	case "$2" in headers|both)
		mkdir -p "$ROOT/lib/modules/$1/build"; touch "$ROOT/lib/modules/$1/build/Makefile" ;;
	esac
	case "$2" in image|both)
		mkdir -p "$ROOT/boot" "$ROOT/lib/modules/$1/kernel"; touch "$ROOT/boot/vmlinuz-$1" ;;
	esac
}

# expect WHAT ARGS...: kernels.sh ARGS prints exactly WHAT (lines joined by spaces).
expect() {
	local want=$1 got

	shift
	got=$("$HERE/kernels.sh" "$@" | cut -f1 | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || { echo "kernels.sh $*: '$got', expected '$want'" >&2; exit 1; }
}

expect ''
expect '' --test

kernel 6.1.0-50-amd64 both
kernel 6.12.95+deb12-amd64 both
kernel 5.10.0-30-amd64 both		# not supported: never listed
kernel 6.1.0-57-amd64 headers		# linux-headers-amd64 through dkms
kernel 6.1.0-9-amd64 image		# image without headers: nothing to build
expect '6.1.0-50-amd64 6.1.0-57-amd64 6.12.95+deb12-amd64'
expect '6.1.0-50-amd64 6.12.95+deb12-amd64' --test
expect '6.1.0-57-amd64' --untested
"$HERE/kernels.sh" --untested | grep -q 'headers only' ||
	{ echo "kernels.sh --untested does not say 6.1.0-57 has headers only" >&2; exit 1; }

# Once its image is there, the newer 6.1 is the one tested (sort -V: 57 > 50).
kernel 6.1.0-57-amd64 image
expect '6.1.0-57-amd64 6.12.95+deb12-amd64' --test
expect '6.1.0-50-amd64' --untested
"$HERE/kernels.sh" --untested | grep -q '6.1.0-57-amd64 is tested' ||
	{ echo "kernels.sh --untested does not name the tested 6.1" >&2; exit 1; }
echo "kernels-selftest: ok"
