#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 480
#
# Hand-crafted packets against a live RC QP (tests/tools/roce_craft.py):
# host 0 runs sroce and an RC QP in RTS whose peer is host 1's crafter;
# host 1 sends bad ICRCs, unknown QPNs, bad P_Keys, truncated headers,
# length and opcode-sequence errors, out-of-bounds RETHs... through a raw
# socket, and checks each reaction (silent drop or the NAK the IBA asks
# for), the counters that moved, and whether the QP survived. Then the same
# for a UD QP (tests/verbs/ud_target.c): wrong Q_Key, too long for the MTU
# or the receive, truncated DETH, unknown QPN... dropped and counted. Then a
# UC QP (rc_target.c "uc"): nothing answered, a PSN gap, a missing receive,
# a bad R_Key or a length error drops the message (uc_dropped_msgs), the
# receive a dropped SEND had taken serves the next one, the QP stays in RTS.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

AGENT_PORT=18700
TARGET=$SROCE_TOP/build/verbs/sroce_rc_target
UD_TARGET=$SROCE_TOP/build/verbs/sroce_ud_target
CRAFT=$SROCE_TOP/tests/tools/roce_craft.py

if [ "$SROCE_HOST" = 0 ]; then
	[ -x "$TARGET" ] && [ -x "$UD_TARGET" ] ||
		fail "$TARGET or $UD_TARGET not built (make -C tests/verbs O=\$PWD/build/verbs)"
	rdma_setup sroce
	log "+ roce_craft.py agent on port $AGENT_PORT"
	python3 "$CRAFT" agent --port "$AGENT_PORT" --dev "$RDMA_DEV" \
		--ud-target "$UD_TARGET $RDMA_DEV 0x11110000" -- \
		"$TARGET" "$RDMA_DEV" "$GID_INDEX" "$SROCE_PEER_IP" 0xc0de '{psn}' '{mtu}' \
		> /tmp/agent.out 2>&1 &
	agent=$!
	wait_for 30 tcp_listening "$AGENT_PORT" || { cat /tmp/agent.out; fail "agent did not listen"; }
	barrier agent-up 60
	wait "$agent" || { cat /tmp/agent.out; fail "agent failed"; }
	barrier crafted 120
else
	wait_peer 30
	barrier agent-up 90
	rc=0
	log "+ roce_craft.py craft --agent $SROCE_PEER_IP:$AGENT_PORT"
	python3 "$CRAFT" craft --agent "$SROCE_PEER_IP:$AGENT_PORT" --src "$SROCE_IP" \
		--dst "$SROCE_PEER_IP" --ud --uc > /tmp/craft.out 2>&1 || rc=$?
	cat /tmp/craft.out
	barrier crafted 30
	grep -qE '^[0-9]+ passed, 0 failed' /tmp/craft.out && [ "$rc" = 0 ] ||
		fail "crafted packets: $(grep -c '^not ok' /tmp/craft.out) rows failed"
	log "$(grep -E '^[0-9]+ passed' /tmp/craft.out)"
fi
