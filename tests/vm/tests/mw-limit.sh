#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 280
#
# max_mw is enforced: one process allocates memory windows until the device
# refuses, which must be exactly at the advertised max_mw and with ENOMEM; a
# dealloc makes room for one window, and deallocating them all gives the
# whole count back (sroce_verbs_test's mw_limit case).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test
rdma_setup sroce
log "max_mw $(devinfo_field "$RDMA_DEV" max_mw)"
CMD_TIMEOUT=250 run_verbs verbs.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --only mw_limit -v
