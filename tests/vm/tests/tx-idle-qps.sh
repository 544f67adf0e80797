#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpus: 2
# boot: shared
# timeout: 240
#
# The transmit thread walks only QPs with work: beside 8192 QPs that never
# post, one busy pair's WRITEs cost passes that visit a handful of QPs each
# (the tx_qp_visits and tx_passes counters), not every QP of the device
# (sroce_verbs_test's tx_idle_qps case). Two vCPUs: there the thread polls.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test
rdma_setup sroce
CMD_TIMEOUT=200 run_verbs verbs.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --only tx_idle_qps -v
