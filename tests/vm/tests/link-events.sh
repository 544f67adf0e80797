#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# eth0 down/up raises IBV_EVENT_PORT_ERR then IBV_EVENT_PORT_ACTIVE, as seen
# by ibv_asyncwatch through the provider.
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
sroce_load
sroce_add sroce0 eth0
# Line-buffered: the output goes to a file and the process gets killed.
stdbuf -oL ibv_asyncwatch -d sroce0 > events.txt 2>&1 &
watcher=$!
trap 'kill $watcher 2>/dev/null' EXIT
wait_for $WAIT eval "ls -l /proc/$watcher/fd | grep -q uverbs" ||
	fail "ibv_asyncwatch did not open sroce0: $(cat events.txt)"
# It opened the device; the events below must find it waiting in
# ibv_get_async_event (its read of the async event file), not still setting up.
wait_for $WAIT grep -q 'event_read' "/proc/$watcher/stack" ||
	fail "ibv_asyncwatch is not reading events: $(cat "/proc/$watcher/stack")"
run ip link set eth0 down
wait_for $WAIT grep -q IBV_EVENT_PORT_ERR events.txt || fail "no IBV_EVENT_PORT_ERR: $(cat events.txt)"
run ip link set eth0 up
wait_for $WAIT grep -q IBV_EVENT_PORT_ACTIVE events.txt ||
	fail "no IBV_EVENT_PORT_ACTIVE: $(cat events.txt)"
cat events.txt
