#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 1500
# full-only
#
# verbs-fuzz.sh with eight seeds of 150 s each (make check-full).
exec bash "$SROCE_TOP/tests/vm/tests/verbs-fuzz.sh" --seeds "11 12 13 14 15 16 17 18" --limit 150
