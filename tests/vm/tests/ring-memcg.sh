#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
#
# Ring memory is charged to the creating process's memory cgroup: CQs of
# 64K entries (4 MiB of ring each) raise the cgroup's memory.current by at
# least their rings, and under a memory.max too small for them
# ibv_create_cq fails with ENOMEM (and the process lives on) instead of
# pinning kernel memory outside the limit. The same for QPs at the largest
# send-queue caps, whose kernel-side copies of every WQE's SGEs and inline
# data (~14 MiB) come on top of their 16 MiB ring: memory.current grows by
# both, and memory.max bounds both.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

HOLD=$SROCE_TOP/build/verbs/sroce_cq_hold
CG=/sys/fs/cgroup
CQE=65536
RING=$((CQE * 64))		# bytes of one ring's entries (struct sroce_cqe: 64)
DEPTH=16384			# send WRs per QP: max_qp_wr
# An SQ entry at 32 SGEs: 64-byte header + 32 * 16, rounded up to 1024.
QP_RING=$((DEPTH * 1024))
# At least what the kernel keeps per WQE besides the ring: its SGEs and inline data.
QP_ARRAYS=$((DEPTH * (32 * 16 + 256)))
QP_BYTES=$((QP_RING + QP_ARRAYS))

[ -x "$HOLD" ] || fail "$HOLD not built (make -C tests/verbs O=\$PWD/build/verbs)"
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || run mount -t cgroup2 none $CG
grep -qw memory $CG/cgroup.controllers || skip "no memory controller in cgroup v2"
echo +memory > $CG/cgroup.subtree_control
rdma_setup sroce

# hold NAME COUNT [MAX]: start sroce_cq_hold in a fresh cgroup NAME (memory.max
# MAX bytes above what it uses once ready, if given), have it create COUNT
# CQs of $CQE entries (QPs of $DEPTH send WRs if HOLD_QP=1), leave its answer
# in $ANSWER and the growth of memory.current in $GREW.
hold() {
	local name=$1 count=$2 headroom=${3:-} dir=$CG/$1 before
	local args=("$RDMA_DEV" $CQE "$count") what="CQs of $CQE"

	if [ "${HOLD_QP:-0}" = 1 ]; then
		args=(--qp "$RDMA_DEV" $DEPTH "$count")
		what="QPs of $DEPTH send WRs"
	fi
	mkdir "$dir"
	coproc HOLDER { echo $BASHPID > "$dir/cgroup.procs"; exec "$HOLD" "${args[@]}"; }
	read -r -t 30 ANSWER <&"${HOLDER[0]}" || fail "$name: sroce_cq_hold did not start"
	[ "$ANSWER" = ready ] || fail "$name: sroce_cq_hold said '$ANSWER'"
	before=$(cat "$dir/memory.current")
	[ -z "$headroom" ] || echo $((before + headroom)) > "$dir/memory.max"
	echo create >&"${HOLDER[1]}"
	read -r -t 60 ANSWER <&"${HOLDER[0]}" || fail "$name: no answer to create"
	GREW=$(($(cat "$dir/memory.current") - before))
	log "$name: $count $what: '$ANSWER', memory.current +$GREW bytes"
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

HOLD_QP=1 hold sroce-qp-grow 2
[ "$ANSWER" = "created 2" ] || fail "2 QPs of $DEPTH send WRs not created: $ANSWER"
[ "$GREW" -ge $((2 * QP_BYTES)) ] ||
	fail "memory.current grew by $GREW bytes for 2 QPs of at least $QP_BYTES: per-WQE arrays are not charged"

HEADROOM=$((2 * QP_RING + QP_RING / 2))
HOLD_QP=1 hold sroce-qp-max 8 $HEADROOM
case "$ANSWER" in
"failed after "*" errno=12 "*) ;;
*) fail "8 QPs of $QP_BYTES bytes under memory.max $HEADROOM above use: '$ANSWER', expected ENOMEM" ;;
esac
MADE=${ANSWER#failed after }
MADE=${MADE%% *}
[ $((MADE * QP_BYTES)) -le "$HEADROOM" ] ||
	fail "$MADE QPs of at least $QP_BYTES bytes each created under memory.max $HEADROOM above use: kernel memory escapes the limit"
log "QP memory (rings and per-WQE arrays) is charged to the memory cgroup and bounded by memory.max"
