#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 600
# full-only
#
# More of sroce against rdma_rxe, each side as requester and as responder:
# the integrity program with its peer on rxe (every case both support),
# IPv6 RoCE v2 GIDs, and mixed link MTUs (host 0's eth0 at 9000 bytes,
# active MTU 4096; host 1's at 1500, active MTU 1024) where the path MTU
# both ends use is the smaller one.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

CMD_TIMEOUT=200

# gid6_index DEV ADDR: index of DEV's RoCE v2 GID ADDR (IPv6).
gid6_index() {
	ibv_devinfo -v -d "$1" 2>/dev/null |
		sed -n "s/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*$2, RoCE v2\$/\1/p" | head -n 1
}

# traffic DIRECTION: every integrity case (a client on rxe skips rxe's own
# verbs deviations, VERBS_SKIP from rxe_setup), IPv6, then the mixed MTUs.
traffic() {
	local addr6=fd00:198:18::$((SROCE_HOST + 1)) idx6 saved

	log "--- $1: $RDMA_DEV (host $SROCE_HOST) ---"
	# rxe defers its work to a kernel thread; on one TCG vCPU its answers
	# can lag for long stretches (a run at the default 67 ms x 8 retries
	# once ended in RETRY_EXC_ERR): 268 ms x 8 = 2 s.
	# Not the UD cases: they size datagrams by the local port's active MTU,
	# which differs here (host 0 4096, host 1 1024), so a datagram of host
	# 0's MTU cannot reach host 1; and rxe (6.12) completes a send through
	# another PD's or process's AH as flushed, not LOC_QP_OP_ERR as sroce's
	# ud_ah_other_* cases expect. UD against rxe: two-hosts-interop-rxe-ud.
	verbs_two_hosts -T 16 -n 2000 --skip 'ud_*'
	run rdma statistic show link "$RDMA_DEV/1"
	# IPv6: both ends use their IPv6 GID.
	idx6=$(gid6_index "$RDMA_DEV" "$addr6")
	[ -n "$idx6" ] || fail "no RoCE v2 GID for $addr6 on $RDMA_DEV"
	saved=$GID_INDEX
	GID_INDEX=$idx6
	pingpong_two_hosts 4096 20
	perftest_two_hosts ib_write_bw bw -s 65536 -n 100
	GID_INDEX=$saved
	# Mixed MTUs: 4096 against 1024, both QPs at the common 1024.
	expect_field "$RDMA_DEV" active_mtu "$MY_MTU"
	pingpong_two_hosts 65536 20 -m 1024
	perftest_two_hosts ib_read_bw bw -s 65536 -n 100 -m 1024
}

require_verbs_test
if [ "$SROCE_HOST" = 0 ]; then
	run ip link set eth0 mtu 9000
	MY_MTU="4096 (5)"
else
	MY_MTU="1024 (3)"
fi
run ip -6 addr add "fd00:198:18::$((SROCE_HOST + 1))/64" dev eth0 nodad
interop_both_directions traffic
log "sroce and rdma_rxe interoperate: integrity, IPv6, mixed MTUs, both directions"
