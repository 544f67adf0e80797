# SPDX-License-Identifier: GPL-2.0
#
# peer_swap PORT LINE SECONDS: the two hosts of a two-host boot swap one line
# each: both listen on TCP PORT and send LINE to the peer's PORT. Sets
# PEER_LINE to what the peer sent and returns 0, or returns 1 with
# PEER_ERROR saying which half did not happen within SECONDS. Never exits:
# guest-init.sh's peer_meet and lib.sh's peer_exchange decide what a lost
# peer means. Sourced inside the guest; needs SROCE_PEER_IP.

peer_swap() {
	local port=$1 line=$2 deadline=$((SECONDS + $3)) inbox lpid

	PEER_LINE='' PEER_ERROR=''
	inbox=$(mktemp /run/peer-swap.XXXXXX) || { PEER_ERROR="no file for exchange $port"; return 1; }
	busybox nc -l -p "$port" > "$inbox" &
	lpid=$!
	# A refused connection returns at once; the timeout only bounds a hung
	# one. Generous: killing a send that got through but was slow to exit
	# (a loaded host) would resend to a listener that is gone.
	until timeout 10 bash -c "echo '$line' > /dev/tcp/$SROCE_PEER_IP/$port" 2> /dev/null; do
		[ $SECONDS -lt $deadline ] || { PEER_ERROR="peer did not reach exchange $port"; break; }
		sleep 0.2
	done
	while [ -z "$PEER_ERROR" ] && kill -0 "$lpid" 2> /dev/null; do
		[ $SECONDS -lt $deadline ] || PEER_ERROR="peer never sent exchange $port"
		sleep 0.1
	done
	kill "$lpid" 2> /dev/null
	wait "$lpid" 2> /dev/null
	read -r PEER_LINE < "$inbox"
	rm -f "$inbox"
	[ -z "$PEER_ERROR" ]
}
