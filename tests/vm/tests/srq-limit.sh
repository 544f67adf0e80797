#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 280
#
# max_srq is enforced: one process creates SRQs until the device refuses,
# which must be exactly at the advertised max_srq and with ENOMEM; a destroy
# makes room for one SRQ, and destroying them all gives the whole count back
# (sroce_verbs_test's srqs_limit case).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test
rdma_setup sroce
log "max_srq $(devinfo_field "$RDMA_DEV" max_srq)"
CMD_TIMEOUT=250 run_verbs verbs.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --only srqs_limit -v
