#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 300
#
# Teardown with RC traffic in flight: killing both processes mid-transfer
# (QPs, CQs and MRs destroyed by ib_uverbs' cleanup while packets fly),
# rdma link delete while processes still hold the device (it waits for
# them), and rmmod refused while in use, then clean once they are gone.
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
modprobe ib_uverbs

ipv4_gid() {
	local i

	for i in $(seq 0 15); do
		case "$(cat "/sys/class/infiniband/$1/ports/1/gids/$i" 2>/dev/null)" in
		0000:0000:0000:0000:0000:ffff:*) echo "$i"; return ;;
		esac
	done
}

sent_bytes() { cat /sys/class/infiniband/sroce0/ports/1/hw_counters/sent_bytes; }

# moved_since BYTES: sroce0 has sent 4 MiB more than BYTES.
moved_since() { [ $(($(sent_bytes) - $1)) -ge $((4 << 20)) ]; }

# traffic TOOL: a server and a client moving data for a long time, in the
# background; returns once 4 MiB have moved, so the teardown that follows
# always lands in mid-transfer.
traffic() {
	local gid sent0

	gid=$(ipv4_gid sroce0)
	[ -n "$gid" ] || fail "no IPv4 GID on sroce0"
	"$1" -d sroce0 -x "$gid" -F -s 65536 -D 60 -p 18700 > /tmp/srv.log 2>&1 &
	SRV=$!
	wait_for 30 eval 'ss -Hltn "sport = :18700" | grep -q .' ||
		fail "$1 server did not listen: $(cat /tmp/srv.log)"
	sent0=$(sent_bytes)
	"$1" -d sroce0 -x "$gid" -F -s 65536 -D 60 -p 18700 127.0.0.1 > /tmp/cli.log 2>&1 &
	CLI=$!
	wait_for 60 moved_since "$sent0" ||
		fail "$1 moved no data: $(cat /tmp/cli.log /tmp/srv.log)"
	kill -0 "$SRV" "$CLI" 2>/dev/null || fail "$1 did not keep running: $(cat /tmp/cli.log /tmp/srv.log)"
}

# unregistering PID: PID (rdma link delete) sleeps in ib_core's device
# unregistration, waiting for the processes that use the device.
unregistering() { grep -q 'unregister' "/proc/$1/stack"; }

stop_traffic() {
	kill -9 "$SRV" "$CLI" 2>/dev/null
	wait "$SRV" "$CLI" 2>/dev/null || true
}

sroce_load
sroce_add sroce0 eth0

for tool in ib_write_bw ib_read_bw ib_send_bw; do
	log "$tool, then kill -9 both ends mid-transfer"
	traffic "$tool"
	stop_traffic
done

log "rdma link delete while traffic runs: waits for the processes"
traffic ib_write_bw
rdma link delete sroce0 &
DEL=$!
wait_for 30 unregistering "$DEL" ||
	fail "rdma link delete is not waiting in unregistration: $(cat "/proc/$DEL/stack" 2>&1)"
kill -0 "$DEL" 2>/dev/null || fail "rdma link delete returned while processes held the device"
stop_traffic
wait_for 30 bash -c "! kill -0 $DEL 2>/dev/null" || fail "rdma link delete still blocked after the processes died"
wait "$DEL" || fail "rdma link delete failed"
! ibdev_exists sroce0 || fail "sroce0 still exists after delete"

log "rmmod while in use is refused, then succeeds"
sroce_add sroce0 eth0
traffic ib_send_bw
rmmod sroce 2>/dev/null && fail "rmmod succeeded while a process used the device"
stop_traffic
wait_for 20 bash -c '! rmmod sroce 2>/dev/null; ! [ -d /sys/module/sroce ]' || fail "rmmod failed after the processes died"
! sroce_loaded || fail "sroce still loaded"
log "ok"
