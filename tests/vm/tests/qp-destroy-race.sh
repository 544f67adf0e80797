#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpus: 2
# timeout: 120
# cmdline: slub_debug=P
#
# A packet whose QP lookup races the QP's destroy must not touch the freed
# QP (issue 13, item 1). One CPU floods ACKs from an ordinary UDP socket on
# [::1] at the newest QP number while the other creates and destroys QPs;
# the test-only delay point holds each lookup 3 ms between loading the QPN
# table entry and taking the reference (Documentation/testing.md). Freed
# memory is poisoned (slub_debug=P; KASAN on the debug kernel), so a lookup
# that used the freed QP oopses or splats. The delay point's counters prove
# lookups did lose the race.
. "$SROCE_TOP/tests/vm/lib.sh"

CHURN=$SROCE_TOP/build/verbs/sroce_qp_churn
FLOOD=$SROCE_TOP/tests/tools/qpn_flood.py
KNOBS=/sys/kernel/debug/sroce
QPS=30 HOLD_MS=15

require_provider
[ -x "$CHURN" ] || fail "$CHURN not built (make -C tests/verbs O=\$PWD/build/verbs)"
modprobe ib_uverbs
sroce_load
sroce_add sroce0 eth0
[ -w "$KNOBS/delay_qp_lookup_us" ] || skip "no $KNOBS (kernel without debugfs)"
counter() { cat "/sys/class/infiniband/sroce0/ports/1/hw_counters/$1"; }

unknown0=$(counter rcvd_unknown_qpn)
echo 3000 > "$KNOBS/delay_qp_lookup_us"
log "+ qpn_flood.py sroce_qp_churn sroce0 $QPS $HOLD_MS"
rc=0
python3 "$FLOOD" "$CHURN" sroce0 "$QPS" "$HOLD_MS" > /tmp/churn.out 2> /tmp/flood.err || rc=$?
echo 0 > "$KNOBS/delay_qp_lookup_us"
cat /tmp/churn.out /tmp/flood.err
[ "$rc" = 0 ] || fail "churn/flood exited $rc"
grep -qx "churned $QPS" /tmp/churn.out || fail "the QPs were not all created and destroyed"

hits=$(cat "$KNOBS/delay_qp_lookup_hits")
lost=$(cat "$KNOBS/delay_qp_lookup_lost")
log "delayed lookups: $hits, of which lost the race to destroy: $lost;" \
    "rcvd_unknown_qpn +$(($(counter rcvd_unknown_qpn) - unknown0))"
[ "$hits" -gt 0 ] || fail "no lookup found a QP: the flood missed"
[ "$lost" -gt 0 ] || fail "no lookup raced a destroy: the test did not test"
