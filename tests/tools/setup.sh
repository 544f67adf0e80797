#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything sroce needs to build and test on a fresh Debian 12 host.
# Idempotent: when every package is already present it only checks and exits.
#
# Kernels: Debian 12's stock 6.1 and the 6.12 from bookworm-backports. The
# backports suite is added by reusing the archive URI the machine is already
# configured with; no host name is written here.
set -euo pipefail

STAMP_DIR=${SROCE_CACHE:-/var/cache/sroce}
BACKPORTS_LIST=/etc/apt/sources.list.d/sroce-backports.sources

PACKAGES=(
	build-essential make gcc bc flex bison libelf-dev libssl-dev pkg-config
	kmod cpio xz-utils zstd busybox-static qemu-system-x86 iproute2
	rdma-core ibverbs-utils libibverbs-dev librdmacm-dev ibverbs-providers
	perftest rdmacm-utils python3-pyverbs tshark sparse
	linux-source-6.1 python3 python3-matplotlib dkms
	clang libclang-rt-14-dev
	nvme-cli fio
	nfs-kernel-server nfs-common
	targetcli-fb open-iscsi
)

log() { echo "setup: $*"; }

# The first deb822 source that serves "bookworm" gives the archive URI.
debian_archive_uri() {
	awk '/^URIs:/ { uri = $2 }
	     /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") { print uri; exit } }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null
	grep -hE '^deb[[:space:]]+[^[:space:]]+[[:space:]]+bookworm[[:space:]]' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '{ print $2 }'
}

add_backports() {
	local uri

	grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 1
	uri=$(debian_archive_uri | head -n 1)
	if [ -z "$uri" ]; then
		echo "setup: no configured Debian bookworm archive found to reuse for backports" >&2
		exit 1
	fi
	log "adding bookworm-backports from $uri"
	cat > "$BACKPORTS_LIST" <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	return 0
}

# Print the versioned kernel flavour ("6.1.0-57-amd64") the linux-image-amd64
# meta package depends on in the given suite; nothing if the suite is not
# configured.
kernel_abi_in() {
	apt-cache show "linux-image-amd64/$1" 2>/dev/null |
		sed -n 's/^Depends:.*linux-image-\([0-9][^ ,]*-amd64\).*/\1/p' | head -n 1
}

# The two kernels sroce is tested on, image and headers of each:
# - 6.1: what a Debian 12 user with security updates runs, i.e. the kernel of
#   bookworm-security when the machine has that suite (6.1.0-57 in 2026-11),
#   else bookworm's own (6.1.0-50);
# - 6.12: bookworm-backports'.
kernel_packages() {
	local abi

	abi=$(kernel_abi_in bookworm-security)
	[ -n "$abi" ] || abi=$(kernel_abi_in bookworm)
	[ -n "$abi" ] || { echo "setup: cannot resolve the bookworm kernel" >&2; exit 1; }
	echo "linux-image-$abi linux-headers-$abi"
	abi=$(kernel_abi_in bookworm-backports)
	[ -n "$abi" ] || { echo "setup: cannot resolve the bookworm-backports kernel" >&2; exit 1; }
	echo "linux-image-$abi linux-headers-$abi"
}

all_installed() {
	dpkg-query -W -f='${db:Status-Status}\n' "$@" 2>/dev/null | grep -qv '^installed$' && return 1
	[ "$(dpkg-query -W -f='${db:Status-Status}\n' "$@" 2>/dev/null | wc -l)" -eq "$#" ]
}

main() {
	local updated=0 kpkgs

	export DEBIAN_FRONTEND=noninteractive
	mkdir -p "$STAMP_DIR"
	if add_backports || [ ! -e "$STAMP_DIR/apt-updated" ]; then
		apt-get update -qq
		touch "$STAMP_DIR/apt-updated"
		updated=1
	fi
	kpkgs=$(kernel_packages)
	# shellcheck disable=SC2086
	if all_installed "${PACKAGES[@]}" $kpkgs; then
		log "all packages present"
		return 0
	fi
	[ "$updated" = 1 ] || apt-get update -qq
	kpkgs=$(kernel_packages)
	log "installing packages"
	# Candidate versions: bookworm with its security updates. Backports
	# (priority 100) serves only what is named from it, the 6.12 kernel.
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" $kpkgs >/dev/null
	log "done"
}

main "$@"
