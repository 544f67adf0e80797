#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 420
# full-only
#
# make check-full's reconnect test: nvmeof-reconnect.sh with 10 cycles of
# the target's port going away and coming back under one fio verify run.
exec bash "$SROCE_TOP/tests/vm/tests/nvmeof-reconnect.sh" --cycles 10 "$@"
