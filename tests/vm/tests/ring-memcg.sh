#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
#
# Ring memory is charged to the creating process's memory cgroup: CQs of
# 64K entries (4 MiB of ring each) raise the cgroup's memory.current by at
# least their rings, and under a memory.max too small for them
# ibv_create_cq fails with ENOMEM (and the process lives on) instead of
# pinning kernel memory outside the limit.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

HOLD=$SROCE_TOP/build/verbs/sroce_cq_hold
CG=/sys/fs/cgroup
CQE=65536
RING=$((CQE * 64))		# bytes of one ring's entries (struct sroce_cqe: 64)

[ -x "$HOLD" ] || fail "$HOLD not built (make -C tests/verbs O=\$PWD/build/verbs)"
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || run mount -t cgroup2 none $CG
grep -qw memory $CG/cgroup.controllers || skip "no memory controller in cgroup v2"
echo +memory > $CG/cgroup.subtree_control
rdma_setup sroce

# hold NAME COUNT [MAX]: start sroce_cq_hold in a fresh cgroup NAME (memory.max
# MAX bytes above what it uses once ready, if given), have it create COUNT
# CQs, leave its answer in $ANSWER and the growth of memory.current in $GREW.
hold() {
	local name=$1 count=$2 headroom=${3:-} dir=$CG/$1 before

	mkdir "$dir"
	coproc HOLDER { echo $BASHPID > "$dir/cgroup.procs"; exec "$HOLD" "$RDMA_DEV" $CQE "$count"; }
	read -r -t 30 ANSWER <&"${HOLDER[0]}" || fail "$name: sroce_cq_hold did not start"
	[ "$ANSWER" = ready ] || fail "$name: sroce_cq_hold said '$ANSWER'"
	before=$(cat "$dir/memory.current")
	[ -z "$headroom" ] || echo $((before + headroom)) > "$dir/memory.max"
	echo create >&"${HOLDER[1]}"
	read -r -t 60 ANSWER <&"${HOLDER[0]}" || fail "$name: no answer to create"
	GREW=$(($(cat "$dir/memory.current") - before))
	log "$name: $count CQs of $CQE: '$ANSWER', memory.current +$GREW bytes"
	exec {HOLDER[1]}>&-
	wait "$HOLDER_PID" || true
	rmdir "$dir"
}

hold sroce-grow 4
[ "$ANSWER" = "created 4" ] || fail "4 CQs of $CQE entries not created: $ANSWER"
[ "$GREW" -ge $((4 * RING)) ] ||
	fail "memory.current grew by $GREW bytes for 4 rings of $RING: ring memory is not charged"

hold sroce-max 8 $((4 * 1024 * 1024))
case "$ANSWER" in
"failed after "*" errno=12 "*) ;;
*) fail "8 CQs of $RING-byte rings under memory.max 4 MiB above use: '$ANSWER', expected ENOMEM" ;;
esac
log "ring memory is charged to the memory cgroup and bounded by memory.max"
