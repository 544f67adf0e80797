#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
#
# Two hosts: each creates sroce0 on eth0 and reaches the peer; each one's
# IPv4 RoCE v2 GID is formed from its own address, and the GID the peer
# reports is formed from the peer's.
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
sroce_load
sroce_add sroce0 eth0
wait_peer 30
expect_gid sroce0 "::ffff:$SROCE_IP" "RoCE v2"
mine=$(gid_list sroce0 | grep -F "::ffff:$SROCE_IP," | cut -d, -f1 | head -n 1)
theirs=$(peer_exchange "$mine")
log "my GID $mine, peer's GID $theirs"
[ "$theirs" = "::ffff:$SROCE_PEER_IP" ] || fail "peer GID '$theirs', expected ::ffff:$SROCE_PEER_IP"
barrier done
