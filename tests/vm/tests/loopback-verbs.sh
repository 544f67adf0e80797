#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 900
#
# sroce_verbs_test --loopback: every integrity, error-path and scale case,
# both QP ends on one device, connected through its IPv4 RoCE v2 GID.
# Extra arguments after the provider go to the program (e.g. rxe --only 'read_*').
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test
rdma_setup "${1:-}"
CMD_TIMEOUT=840 run_verbs verbs.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" "${@:2}"
