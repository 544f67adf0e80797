#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Harness self-test for a shared boot: exits 0 but the kernel warns, so it
# must FAIL, and only it: the case after it in the same boot must not see
# this warning in its slice of the kernel log.
. "$SROCE_TOP/tests/vm/lib.sh"

echo "WARNING: CPU: 0 PID: 1 at fake/selftest.c:1 selftest" > /dev/kmsg
