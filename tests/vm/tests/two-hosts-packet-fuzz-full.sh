#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 780
# full-only
#
# make check-full's packet fuzz: two-hosts-packet-fuzz.sh for 600 s with a
# fresh random seed each run (printed: replay it with --seed).
exec bash "$SROCE_TOP/tests/vm/tests/two-hosts-packet-fuzz.sh" --seconds 600 --seed random "$@"
