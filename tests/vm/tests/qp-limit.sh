#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 240
#
# max_qp is enforced: one process creates QPs until the device refuses,
# which must be exactly at the advertised max_qp and with ENOMEM; a destroy
# makes room for one QP, and destroying them all gives the whole count back
# (sroce_verbs_test's qp_limit case).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test
rdma_setup sroce
log "max_qp $(devinfo_field "$RDMA_DEV" max_qp)"
CMD_TIMEOUT=200 run_verbs verbs.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --only qp_limit -v
