#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: must be reported FAIL. With "splat" it exits 0 but
# triggers a kernel warning, which vm-run must also turn into FAIL; with
# "hang" it sleeps past the timeout; with "skip" it must be reported SKIP.
. "$SROCE_TOP/tests/vm/lib.sh"

case "${1:-}" in
splat) echo "WARNING: CPU: 0 PID: 1 at fake/selftest.c:1 selftest" > /dev/kmsg; exit 0 ;;
hang) sleep 1000 ;;
skip) skip "asked to" ;;
*) fail "asked to" ;;
esac
