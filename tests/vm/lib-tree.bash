# SPDX-License-Identifier: GPL-2.0
#
# A small tree of files to move through a kernel consumer and compare, and
# the packet count that shows it went over the RDMA device: for
# lib-nfsrdma.bash and lib-iser.bash, sourced after lib.sh with TREE_SRC set
# (where make_tree writes the tree, in the guest's own tmpfs).
#
# Named .bash, not .sh, so that run-suite.sh never takes it for a test.

# tree_sums DIR: sha256sum of every file under DIR, by relative name.
tree_sums() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

# tree_digest DIR: one line for all of it.
tree_digest() {
	local sums

	sums=$(tree_sums "$1") || fail "cannot read the tree under $1"
	sha256sum <<< "$sums" | cut -d' ' -f1
}

# make_tree: the tree under TREE_SRC, sizes around pages, RDMA segments and
# rsize/wsize; TREE_BYTES and TREE_DIGEST describe it.
make_tree() {
	mkdir -p "$TREE_SRC/sub/deeper"
	head -c $((2 << 20)) /dev/urandom > "$TREE_SRC/two-mib"
	head -c $(((1 << 20) + 12345)) /dev/urandom > "$TREE_SRC/odd"
	head -c 4097 /dev/urandom > "$TREE_SRC/sub/page-and-one"
	head -c 777777 /dev/urandom > "$TREE_SRC/sub/deeper/middle"
	head -c 1 /dev/urandom > "$TREE_SRC/sub/one-byte"
	: > "$TREE_SRC/empty"
	TREE_BYTES=$(du -sb --apparent-size "$TREE_SRC" | cut -f1)
	# shellcheck disable=SC2034 # the scripts'
	TREE_DIGEST=$(tree_digest "$TREE_SRC")
	log "tree: $(find "$TREE_SRC" -type f | wc -l) files, $TREE_BYTES bytes"
}

# expect_tree DIR DIGEST WHAT: DIR holds exactly the tree of DIGEST.
expect_tree() {
	local got

	got=$(tree_digest "$1")
	if [ "$got" != "$2" ]; then
		[ ! -d "$TREE_SRC" ] || diff <(tree_sums "$1") <(tree_sums "$TREE_SRC") || true
		fail "$3 differs from the tree written"
	fi
	log "$3: byte for byte the tree written"
}

# rdma_pkts: packets RDMA_DEV sent and received so far.
rdma_pkts() {
	local hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters

	echo $(($(cat "$hw/sent_pkts") + $(cat "$hw/rcvd_pkts")))
}

# expect_rdma_pkts SINCE WHAT: RDMA_DEV moved at least a packet per 4 KiB
# of the tree written once and read once since rdma_pkts said SINCE.
expect_rdma_pkts() {
	local pkts=$(($(rdma_pkts) - $1))

	log "$2: $RDMA_DEV sent and received $pkts packets"
	[ "$pkts" -ge $((2 * TREE_BYTES / 4096)) ] ||
		fail "$2: $RDMA_DEV moved only $pkts packets for 2 x $TREE_BYTES bytes"
}
