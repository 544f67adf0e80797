#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 300
#
# sroce_ring_fuzz: a process scribbles over its own SQ, RQ and CQ rings
# (hostile indices, bad WQEs, garbage CQEs) of an RC QP and, every other
# round, a UD QP (forged AH indices, QPNs and Q_Keys, datagrams over the
# MTU, receives shorter than the GRH area, AHs destroyed under its posts),
# and pokes the kernel through legal verbs, seed after seed, while another
# process moves data on the same device over RC and UD. It may hurt only
# its own QPs: the bystander's data, a fresh pair afterwards, a clean
# kernel log, and a device and module that still go away (no leaked
# references) say it did; the device's UD drop counters say the UD rounds
# reached the kernel's checks.
#
#   ring-fuzz.sh [--seeds "S1 S2 ..."] [--limit SEC] [PROGRAM ARGS...]
#
# --seeds replaces the two default seeds, --limit (default 100) bounds each
# run; the rest goes to the program (e.g. -r 1500), which always gets -v:
# each round's actions reach the console as they happen. Longer runs need a
# longer vm-run --timeout.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

FUZZ=$SROCE_TOP/build/verbs/sroce_ring_fuzz
SEEDS="0x5eed1 0x5eed2"
LIMIT=100

# fuzz SEED ARGS...: one run; its output goes to the console as it comes,
# so a run that takes the kernel down still shows its last round. Passes
# if it exits 0, every check is "ok" and the tally says so.
fuzz() {
	local seed=$1 out=fuzz-$1.out rc=0

	shift
	log "+ $FUZZ -d $RDMA_DEV -g $GID_INDEX -s $seed -t $LIMIT $*"
	timeout $((LIMIT + 30)) "$FUZZ" -d "$RDMA_DEV" -g "$GID_INDEX" -s "$seed" -t "$LIMIT" "$@" 2>&1 |
		tee "$out" || rc=$?
	if grep -q '^not ok ' "$out" || ! grep -qE '^[0-9]+ passed, 0 failed$' "$out"; then
		fail "seed $seed: $(grep -E '^[0-9]+ passed' "$out" || echo 'no tally'); $(grep '^not ok ' "$out" | head -n 3 | tr '\n' ';')"
	fi
	[ "$rc" = 0 ] || fail "sroce_ring_fuzz seed $seed exited with status $rc"
}

ARGS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--seeds) SEEDS=$2; shift 2 ;;
	--limit) LIMIT=$2; shift 2 ;;
	'') shift ;;		# vm-run may pass an empty argument
	*) ARGS+=("$1"); shift ;;
	esac
done

[ -x "$FUZZ" ] || fail "$FUZZ not built (make -C tests/verbs O=\$PWD/build/verbs)"
rdma_setup sroce
for seed in $SEEDS; do
	fuzz "$seed" -v "${ARGS[@]}"
done

# ud_counter NAME: one of sroce0's counters.
ud_counter() {
	cat "/sys/class/infiniband/sroce0/ports/1/hw_counters/$1"
}

counters=
for c in qkey_viol ud_send_too_long rcvd_ud_len_err rcvd_ud_no_wqe rcvd_unknown_qpn rcvd_malformed; do
	counters+=" $c $(ud_counter "$c")"
done
log "sroce0 drops after the fuzz:$counters"
# Every seed sends datagrams over the MTU and to Q_Keys that are not the
# receiver's from QPs the fuzz leaves alone: if nothing was counted, the UD
# rounds did not reach the kernel.
[ "$(ud_counter ud_send_too_long)" -gt 0 ] && [ "$(ud_counter qkey_viol)" -gt 0 ] ||
	fail "no ud_send_too_long or no qkey_viol: the UD rounds did not reach the kernel's UD checks"

if dmesg | grep -E "$SPLAT"; then
	fail "kernel log shows a splat after the fuzz"
fi
log "kernel log clean: $(dmesg | grep -c 'corrupt send queue index') corrupt-index reports"

# Every uverbs file is closed: the device and the module must go.
delete_and_unload_sroce
