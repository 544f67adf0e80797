#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# fake-device.sh NAME UVERBS_ABI -- COMMAND...
#
# Runs COMMAND where libibverbs sees one rdma device called NAME whose
# uverbs ABI version is UVERBS_ABI, with no kernel support at all:
#
#   SYSFS_PATH=<tmp>/sys  a hand-made class/infiniband{,_verbs} tree, which
#                         libibverbs reads when rdma netlink is unavailable
#   /dev/infiniband/uverbs0  a private tmpfs /dev (mount namespace) in which
#                         the uverbs node is /dev/null's 1:3: opens succeed,
#                         ioctl() fails with ENOTTY so libibverbs falls back to
#                         write(), and every command "succeeds" with an
#                         all-zero response
#
# So device matching, the ABI range check, alloc_device and alloc_context
# all run for real; the kernel's answers are all zeros. Needs root and
# unshare(1); exits 77 if the namespace cannot be set up.
set -eu

name=$1 abi=$2
shift 3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sys=$tmp/sys
mkdir -p "$sys/class/infiniband_verbs/uverbs0" "$sys/class/infiniband/$name"
echo 6 >"$sys/class/infiniband_verbs/abi_version"
echo "$name" >"$sys/class/infiniband_verbs/uverbs0/ibdev"
echo 1:3 >"$sys/class/infiniband_verbs/uverbs0/dev"
echo "$abi" >"$sys/class/infiniband_verbs/uverbs0/abi_version"
echo 1 >"$sys/class/infiniband/$name/node_type"
echo 0002:c9ff:fe00:0001 >"$sys/class/infiniband/$name/node_guid"

# The inner shell builds the private /dev, then execs COMMAND.
inner='
set -e
mount -t tmpfs -o mode=755 sroce-fake-dev /dev
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/zero c 1 5
mknod -m 666 /dev/urandom c 1 9
mkdir /dev/infiniband
mknod -m 666 /dev/infiniband/uverbs0 c 1 3
exec "$@"
'
if ! unshare -m --propagation private true 2>/dev/null; then
	echo "fake-device: cannot create a mount namespace" >&2
	exit 77
fi
SYSFS_PATH=$sys unshare -m --propagation private sh -c "$inner" fake-device "$@"
