#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest ib_write_bw on one device (server and client in this guest, TCP over
# 127.0.0.1): RC WRITE bandwidth for 2 B and 64 KiB; each run must print a results
# table with a row per size.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
perftest_default loopback ib_write_bw bw
