#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 900
#
# sroce_verbs_test across the link: --server on host 0, --client on host 1
# (TCP control stream to 198.18.0.1:18515); every case, each host judging
# its own half and reporting the other's.
# Extra arguments after the provider go to the program (e.g. rxe --only 'read_*').
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test
rdma_setup "${1:-}"
wait_peer 30
CMD_TIMEOUT=780
if [ "$SROCE_HOST" = 0 ]; then
	run_verbs verbs.out --server -p 18515 -d "$RDMA_DEV" -g "$GID_INDEX" "${@:2}"
else
	run_verbs verbs.out --client "$SROCE_PEER_IP" -p 18515 -d "$RDMA_DEV" -g "$GID_INDEX" \
		"${@:2}"
fi
