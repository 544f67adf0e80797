#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 200
#
# The GSI QP: at "rdma link add", ib_mad opens the port without a complaint
# in dmesg, QP 1 (type GSI) is listed by "rdma res show qp", ib_umad makes a
# umad device for it, and MADs really flow: rping connects through rdma_cm
# (ib_cm's REQ/REP/RTU are MADs between the device's GSI QP and itself)
# and verifies its data. With "rxe" as argument the same runs on rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

RPING_COUNT=20

dmesg -c > /dev/null
rdma_setup "${1:-}"
sleep 1	# ib_mad's port open runs in the registration itself; give the log a moment
if dmesg | grep -E "Couldn't (create ib_mad|open port)|ib_mad|ib_cm"; then
	fail "ib_mad or ib_cm complained at rdma link add"
fi

qps=$(rdma res show qp link "$RDMA_DEV/1" 2>&1) || fail "rdma res show qp: $qps"
echo "$qps"
grep -Eq "lqpn 1 .*type GSI" <<< "$qps" || fail "no GSI QP 1 on $RDMA_DEV"

run modprobe ib_umad || fail "no ib_umad module"
umad=""
for d in /sys/class/infiniband_mad/umad*; do
	[ "$(cat "$d/ibdev" 2>/dev/null)" = "$RDMA_DEV" ] && umad=${d##*/}
done
[ -n "$umad" ] || fail "ib_umad made no umad device for $RDMA_DEV"
wait_for 5 test -c "/dev/infiniband/$umad" || fail "/dev/infiniband/$umad missing"
log "$RDMA_DEV: GSI QP 1 listed, /dev/infiniband/$umad"

timeout 60 rping -s -a "$SROCE_IP" -p 7471 -C "$RPING_COUNT" -V -S 64 > rping-server.out 2>&1 &
server=$!
wait_for 10 sh -c "rdma res show cm_id | grep -q 'state LISTEN'" || fail "rping server did not listen"
rc=0
timeout 60 rping -c -a "$SROCE_IP" -p 7471 -C "$RPING_COUNT" -V -S 64 -v > rping-client.out 2>&1 || rc=$?
wait "$server" || rc=$((rc ? rc : 100 + $?))
tail -n 3 rping-client.out
cat rping-server.out
[ "$rc" = 0 ] || fail "rping over rdma_cm failed (status $rc)"
pings=$(grep -c '^ping data: ' rping-client.out || true)
[ "$pings" = "$RPING_COUNT" ] || fail "rping -v printed $pings of $RPING_COUNT pings"
log "rping: $pings verified pings through rdma_cm"
rdma_teardown
