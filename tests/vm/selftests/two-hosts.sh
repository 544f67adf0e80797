#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test (--hosts 2): the link works both ways, barriers and the
# value exchange pair up.
. "$SROCE_TOP/tests/vm/lib.sh"

wait_peer 30
barrier start
got=$(peer_exchange "host$SROCE_HOST")
[ "$got" = "host$((1 - SROCE_HOST))" ] || fail "exchange got '$got'"
log "peer says $got"
barrier end
