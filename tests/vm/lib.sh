# SPDX-License-Identifier: GPL-2.0
#
# Helpers for tests/vm/tests/*.sh, sourced inside the guest:
#   . "$SROCE_TOP/tests/vm/lib.sh"
# vm-run sets SROCE_TOP, SROCE_KO, RDMAV_DRIVERS, SROCE_HOST (0 or 1),
# SROCE_IP and SROCE_PEER_IP. Exit 0 = pass, 77 = skip, else fail; fail and
# skip exit at once, so a script reads top to bottom as its list of checks.
set -euo pipefail
# shellcheck source=tests/vm/peer.bash
. "$SROCE_TOP/tests/vm/peer.bash"

TEST_NAME=$(basename "$0" .sh)
# Default wait for things that should happen "at once". Generous: the debug
# kernel (KASAN, lockdep) under TCG on a busy host is 10x slower, and a long
# wait only costs time when the test fails anyway.
WAIT=20
# Kernel log lines that are a splat, for the fuzz tests' own checks while
# they run (vm-run judges the whole log afterwards with its longer SPLATS).
SPLAT='BUG:|WARNING:|Oops|general protection|KASAN:|UBSAN:|Call Trace|refcount_t:|list_(add|del) corruption|circular locking|lock state|unreferenced object|soft lockup|blocked for more than'

log() { echo "[$TEST_NAME] $*"; }
fail() { echo "[$TEST_NAME] FAIL: $*"; exit 1; }
skip() { echo "[$TEST_NAME] SKIP: $*"; exit 77; }

# Show a command, then run it.
run() {
	log "+ $*"
	"$@"
}

# expect_fail CMD...: CMD must exit non-zero (and not by a signal or timeout).
expect_fail() {
	local rc=0

	log "+ $* (must fail)"
	"$@" || rc=$?
	[ "$rc" != 0 ] || fail "'$*' succeeded but must fail"
	[ "$rc" -lt 124 ] || fail "'$*' died with status $rc instead of failing cleanly"
	log "  failed as expected (status $rc)"
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))

	shift
	until "$@" > /dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
}

# --- sroce devices --------------------------------------------------------

require_module() {
	[ -f "/lib/modules/$(uname -r)/updates/sroce.ko" ] ||
		fail "sroce.ko was not built for $(uname -r) ($SROCE_KO)"
}

require_provider() {
	[ -f "$RDMAV_DRIVERS-rdmav34.so" ] || fail "provider not built ($RDMAV_DRIVERS-rdmav34.so)"
}

sroce_load() {
	require_module
	run modprobe sroce || fail "modprobe sroce failed"
}

sroce_loaded() { [ -d /sys/module/sroce ]; }

ibdev_exists() { [ -e "/sys/class/infiniband/$1" ]; }

# Device names under /sys/class/infiniband, one a line.
ibdev_list() { ls /sys/class/infiniband 2>/dev/null | sort; }

# sroce_add NAME NETDEV: create the device and wait until sysfs shows it.
sroce_add() {
	run rdma link add "$1" type sroce netdev "$2" ||
		fail "rdma link add $1 netdev $2 failed"
	wait_for $WAIT ibdev_exists "$1" || fail "$1 did not appear in /sys/class/infiniband"
}

sroce_del() {
	run rdma link delete "$1" || fail "rdma link delete $1 failed"
	wait_for $WAIT eval "! ibdev_exists $1" || fail "$1 still present after delete"
}

# --- port attributes through the provider (ibv_devinfo) -------------------

# devinfo_field DEV FIELD: value of "FIELD:" from ibv_devinfo -v, e.g.
# state -> "PORT_ACTIVE (4)", active_mtu -> "1024 (3)", link_layer -> "Ethernet".
devinfo_field() {
	ibv_devinfo -v -d "$1" 2>/dev/null |
		sed -n "s/^[[:space:]]*$2:[[:space:]]*//p" | head -n 1
}

field_is() { [ "$(devinfo_field "$1" "$2")" = "$3" ]; }

# expect_field DEV FIELD VALUE [SECONDS]: wait (default $WAIT) until it matches.
expect_field() {
	local got

	if ! wait_for "${4:-$WAIT}" field_is "$1" "$2" "$3"; then
		got=$(devinfo_field "$1" "$2")
		fail "$1 $2 is '$got', expected '$3'"
	fi
	log "$1 $2 = $3"
}

# gid_list DEV: the GID table of ibv_devinfo -v, one "GID, TYPE" a line
# (RoCE v2 GIDs are printed as addresses: ::ffff:198.18.0.1, fd00::1).
gid_list() {
	ibv_devinfo -v -d "$1" 2>/dev/null |
		sed -n 's/^[[:space:]]*GID\[ *[0-9]*\]:[[:space:]]*//p'
}

# has_gid DEV GID [TYPE]: the table lists GID (with TYPE, e.g. "RoCE v2").
has_gid() {
	gid_list "$1" | grep -qxF "$2${3:+, $3}"
}

# expect_gid DEV GID TYPE [SECONDS]: wait (default $WAIT) for the GID.
expect_gid() {
	if ! wait_for "${4:-$WAIT}" has_gid "$1" "$2" "$3"; then
		gid_list "$1"
		fail "$1 has no $3 GID $2"
	fi
	log "$1 has $3 GID $2"
}

# --- two hosts ------------------------------------------------------------

# iputils is not installed here; busybox's ping is enough.
peer_reachable() { busybox ping -c 1 -W 1 "$SROCE_PEER_IP"; }

wait_peer() {
	wait_for "${1:-30}" peer_reachable || fail "peer $SROCE_PEER_IP unreachable"
}

# peer_exchange VALUE [SECONDS]: send VALUE (one line) to the peer, print the
# peer's. Both hosts must call it the same number of times in the same order:
# the n-th call of a test uses TCP port 20000+n. Doubles as a barrier. Called
# in $(...) as a rule, so the count lives in a file (a subshell's variable
# would not count; guest-init.sh's cleanup removes it after each test) and a
# lost peer is reported on stderr, which the caller does not capture.
PEER_SEQ_FILE=/tmp/.sroce-peer-seq

peer_exchange() {
	local seq=0

	[ -s "$PEER_SEQ_FILE" ] && read -r seq < "$PEER_SEQ_FILE"
	echo $((seq + 1)) > "$PEER_SEQ_FILE"
	if ! peer_swap $((20000 + seq)) "$1" "${2:-60}"; then
		echo "[$TEST_NAME] FAIL: $PEER_ERROR" >&2
		exit 1
	fi
	echo "$PEER_LINE"
}

# barrier NAME [SECONDS]: both hosts wait here for each other.
barrier() {
	local got

	got=$(peer_exchange "$1" "${2:-60}")
	[ "$got" = "$1" ] || fail "barrier '$1' met peer at '$got'"
	log "barrier $1 passed"
}

# rmmod_loaded MODULE...: rmmod those of MODULE... that are loaded, in
# one call (in the order given).
rmmod_loaded() {
	local m loaded=()

	for m in "$@"; do
		[ -d "/sys/module/$m" ] && loaded+=("$m")
	done
	[ ${#loaded[@]} = 0 ] || run rmmod "${loaded[@]}"
}

# --- configfs (kernel targets: nvmet, LIO) --------------------------------

# configfs is a module on Debian: the guest may not have mounted it at
# boot. configfs_mount mounts it if needed; configfs_umount undoes only
# that mount: it must not outlive the test (shared boot), as it would keep
# the module loaded.
CONFIGFS_MOUNTED=0
configfs_mount() {
	grep -q " /sys/kernel/config configfs " /proc/mounts && return 0
	run mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
	CONFIGFS_MOUNTED=1
}

configfs_umount() {
	[ "$CONFIGFS_MOUNTED" = 0 ] || { umount /sys/kernel/config && CONFIGFS_MOUNTED=0; }
}

# --- bad input ------------------------------------------------------------

# expect_rejected CMD...: CMD (an rdma command) must fail and leave the list
# of RDMA devices as it was. vm-run then checks the kernel log for splats.
expect_rejected() {
	local before after

	before=$(ibdev_list)
	expect_fail "$@"
	after=$(ibdev_list)
	[ "$before" = "$after" ] ||
		fail "device list changed: before [$(echo $before)] after [$(echo $after)]"
	log "device list unchanged: [$(echo $after)]"
}
