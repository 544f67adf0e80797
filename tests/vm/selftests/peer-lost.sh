#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test (--hosts 2): host 1 leaves without the exchange host 0
# waits for. Host 0's verdict must say why it failed, although the exchange
# runs inside $(...): "peer did not reach exchange 20001" (the second
# exchange of the test: the first, a barrier, counts too).
. "$SROCE_TOP/tests/vm/lib.sh"

wait_peer 30
barrier start
[ "$SROCE_HOST" = 0 ] || exit 0
got=$(peer_exchange "host$SROCE_HOST" 5)
fail "exchange returned '$got' with no peer"
