# SPDX-License-Identifier: GPL-2.0
#
# `make run`'s view of the guest console (vm-run --interactive-log): the
# demo's own lines, vm-run's and stage 2's progress lines and the verdict.
# Left out: the guest kernel's console messages and the kernel log vm-run
# prints after the script; both stay in the log the verdict line names, and
# vm-run still judges them (a splat fails the run). From vm-run's failure
# report ("vm-run: ----", splat lines included) on, everything is printed.
{ sub(/\r$/, "") }
all { print; fflush(); next }
/^vm-run: ----/ || /^vm-run: .*: (PASS|FAIL|SKIP)/ { all = 1; print; fflush(); next }
/^SROCE-DMESG-BEGIN-/ { dmesg = 1; next }
/^SROCE-DMESG-END-/ { dmesg = 0; next }
dmesg || /^SROCE-EXIT-/ || /^\[ *[0-9]+\.[0-9]+\] / { next }
{ print; fflush() }
