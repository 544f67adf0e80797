#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# List the supported Debian kernels whose headers are installed, oldest first:
# one release string per line (e.g. 6.1.0-50-amd64, 6.12.95+deb12-amd64).
# With --default, print only the kernel `make` builds for when no KDIR/KVER is
# given: the running kernel if its build tree exists, else the newest one.
set -euo pipefail

list_kernels() {
	local dir

	for dir in /lib/modules/*/build; do
		[ -e "$dir/Makefile" ] || continue
		basename "$(dirname "$dir")"
	done | grep -E '^6\.(1|12)\.[0-9]+.*-amd64$' | sort -V
}

if [ "${1:-}" = "--default" ]; then
	if [ -e "/lib/modules/$(uname -r)/build/Makefile" ]; then
		uname -r
	else
		list_kernels | tail -n 1
	fi
else
	list_kernels
fi
