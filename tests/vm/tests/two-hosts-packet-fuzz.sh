#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 200
#
# Packet fuzzing (tests/tools/roce_mutate.py): host 1 fires mutated RoCEv2
# packets with valid ICRCs (rdma_rxe's capture and packets built for the
# live targets, retargeted, mutated) at host 0's live RC QP, UD QP and GSI
# QP 1, over IPv4 and IPv6, while two other QPs of host 0's device move data
# byte-exact (sroce_verbs_test --loopback). The targets may go to error; the
# kernel must stay quiet, every fresh RC QP must answer a valid SEND, the UD
# QP must still receive, the bystander must finish byte-exact, and the
# device and the module must go away afterwards (no leaked reference).
#
#   two-hosts-packet-fuzz.sh [--seconds SEC] [--seed SEED|random] [--replay N[-M]]
#
# Defaults: 30 s with seed 0x5eed13 (make check); make check-full runs
# two-hosts-packet-fuzz-full.sh: 600 s with a random seed. The seed is
# printed; --replay N-M (with that --seed) resends just mutants N..M, a
# splat check after each, to find the one a failed run bracketed.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

AGENT_PORT=18710
BYSTANDER_PORT=18720
TARGET=$SROCE_TOP/build/verbs/sroce_rc_target
UD_TARGET=$SROCE_TOP/build/verbs/sroce_ud_target
MUTATE=$SROCE_TOP/tests/tools/roce_mutate.py
FUZZ_SECONDS=30
SEED=0x5eed13
REPLAY=()
IP6_0=fd00:198:18::1
IP6_1=fd00:198:18::2
# What the bystander runs, each case byte for byte, again and again.
BYSTANDER_CASES=(-o send -o write -o read_4096 -o read_65536 -o atomic_fetch_add -o multi_sge_send)

while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) FUZZ_SECONDS=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--replay) REPLAY=(--replay "$2"); shift 2 ;;
	'') shift ;;
	*) fail "unknown argument $1" ;;
	esac
done
[ "$SEED" != random ] || SEED=$(printf '%#x' $((RANDOM << 15 | RANDOM)))

# bystander: sroce_verbs_test --loopback rounds until /tmp/fuzz-done; each
# round must pass every case. Its last line: "bystander: N rounds".
bystander() {
	local round=0

	while [ ! -e /tmp/fuzz-done ]; do
		round=$((round + 1))
		timeout 120 "$VERBS_TEST" --loopback -d "$RDMA_DEV" -g "$GID_INDEX" -T 18 \
			-p "$BYSTANDER_PORT" "${BYSTANDER_CASES[@]}" > "/tmp/bystander-$round.out" 2>&1 ||
			{ cat "/tmp/bystander-$round.out"; echo "bystander: round $round failed"; return 1; }
		grep -qE '^[0-9]+ passed, 0 failed' "/tmp/bystander-$round.out" ||
			{ cat "/tmp/bystander-$round.out"; echo "bystander: round $round: no clean tally"; return 1; }
	done
	echo "bystander: $round rounds"
}

host0() {
	[ -x "$TARGET" ] && [ -x "$UD_TARGET" ] ||
		fail "$TARGET or $UD_TARGET not built (make -C tests/verbs O=\$PWD/build/verbs)"
	require_verbs_test
	rdma_setup sroce
	local v4_gid=$GID_INDEX

	rdma_use_ipv6_gid		# the UD and GSI QPs get IPv6 datagrams too
	GID_INDEX=$v4_gid
	log "+ roce_mutate.py agent on port $AGENT_PORT"
	python3 "$MUTATE" agent --port "$AGENT_PORT" --dev "$RDMA_DEV" --splat "$SPLAT" \
		--ud-target "$UD_TARGET $RDMA_DEV 0x11110000" -- \
		"$TARGET" "$RDMA_DEV" "$GID_INDEX" "$SROCE_PEER_IP" 0xc0de '{psn}' '{mtu}' \
		> /tmp/agent.out 2>&1 &
	local agent=$! traffic rc=0

	wait_for 30 tcp_listening "$AGENT_PORT" || { cat /tmp/agent.out; fail "agent did not listen"; }
	bystander > /tmp/bystander.out 2>&1 &
	traffic=$!
	barrier agent-up 60
	wait "$agent" || rc=$?
	touch /tmp/fuzz-done
	cat /tmp/agent.out
	wait "$traffic" || { cat /tmp/bystander.out; fail "bystander traffic failed during the fuzz"; }
	barrier fuzzed $((FUZZ_SECONDS + 120))
	[ "$rc" = 0 ] || fail "agent exited with status $rc"
	log "$(tail -n 1 /tmp/bystander.out) of ${BYSTANDER_CASES[*]}, byte-exact, during the fuzz"
	if dmesg | grep -E "$SPLAT"; then
		fail "kernel log shows a splat after the fuzz"
	fi
	delete_and_unload_sroce
}

host1() {
	local rc=0

	run ip -6 addr add "$IP6_1/64" dev eth0 nodad
	wait_peer 30
	wait_peer_ipv6 30
	barrier agent-up 90
	log "+ roce_mutate.py fuzz --seed $SEED --seconds $FUZZ_SECONDS"
	python3 "$MUTATE" fuzz --agent "$SROCE_PEER_IP:$AGENT_PORT" --src "$SROCE_IP" \
		--dst "$SROCE_PEER_IP" --src6 "$IP6_1" --dst6 "$IP6_0" --seed "$SEED" \
		--seconds "$FUZZ_SECONDS" "${REPLAY[@]}" 2>&1 | tee /tmp/fuzz.out || rc=$?
	barrier fuzzed 120
	[ "$rc" = 0 ] && grep -q '^ok: ' /tmp/fuzz.out ||
		fail "packet fuzz, seed $SEED: $(grep -E '^(FAIL|SPLAT)' /tmp/fuzz.out | head -n 2 | tr '\n' ' ')"
}

if [ "$SROCE_HOST" = 0 ]; then
	host0
else
	host1
fi
