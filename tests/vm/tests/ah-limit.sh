#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 280
#
# max_ah is enforced: one process creates AHs until the device refuses,
# which must be exactly at the advertised max_ah and with ENOMEM; a destroy
# makes room for one AH, and destroying them all gives the whole count back
# (sroce_verbs_test's ah_limit case). The GSI QP's AHs come and go with
# MADs: none are alive here, as nothing talks to the device.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test
rdma_setup sroce
log "max_ah $(devinfo_field "$RDMA_DEV" max_ah)"
CMD_TIMEOUT=250 run_verbs verbs.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --only ah_limit -v
