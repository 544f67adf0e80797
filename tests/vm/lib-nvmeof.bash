# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics helpers for tests/vm/tests/*nvmeof*.sh, sourced after
# lib.sh and lib-rdma.bash inside the guest:
#   . "$SROCE_TOP/tests/vm/lib-nvmeof.bash"
#   trap nvmf_cleanup EXIT
#
# Target: nvmet-rdma configured through configfs (Debian ships no
# nvmetcli), one subsystem NVMF_NQN whose namespace 1 is a brd ramdisk
# (/dev/ram0, NVMF_RAM_MIB), on port 1 listening on ADDR:NVMF_TRSVCID.
# Host: nvme-rdma, through nvme-cli (nvmf_discover, nvmf_connect) or
# straight through /dev/nvme-fabrics (nvmf_connect_raw). After a connect:
# NVMF_CTRL (e.g. nvme0) and NVMF_NS (e.g. /dev/nvme0n1).
#
# nvmf_cleanup undoes whatever of this the test did, in reverse, also
# after a failure half-way: a shared boot's next test must find no
# controller, no configfs entry, no configfs mount (it would keep the
# module loaded) and no fio.

NVMF_NQN=${NVMF_NQN:-nqn.2026-12.test.sroce:$TEST_NAME}
NVMF_CFG=/sys/kernel/config/nvmet
NVMF_TRSVCID=4420
NVMF_RAM_MIB=${NVMF_RAM_MIB:-4}
# nvmet-rdma's use_srq (off by default): its receive buffers on SRQs.
NVMF_USE_SRQ=${NVMF_USE_SRQ:-0}
NVMF_CTRL='' NVMF_NS=''
NVMF_TARGET_UP=0 NVMF_FIO_PID=''
NVMF_DMESG_MARK=0 NVMF_RES_BEFORE='' NVMF_POLL_QUEUES=0
NVMF_SUBSYS=$NVMF_CFG/subsystems/$NVMF_NQN
NVMF_PORT_DIR=$NVMF_CFG/ports/1
# What the kernel must not say while NVMe-oF runs (nvmf_check_dmesg).
NVMF_COMPLAINTS='nvme.*(error|failed|Bogus|timeout)|nvmet.*(error|failed)'

# --- target -------------------------------------------------------------------

# nvmf_target_up ADDR: export /dev/ram0 as namespace 1 of NVMF_NQN on ADDR.
nvmf_target_up() {
	run modprobe brd rd_nr=1 rd_size=$((NVMF_RAM_MIB * 1024)) || fail "modprobe brd"
	if [ "$NVMF_USE_SRQ" = 1 ]; then
		run modprobe nvmet-rdma use_srq=1 || fail "modprobe nvmet-rdma use_srq=1"
	else
		run modprobe nvmet-rdma || fail "modprobe nvmet-rdma"
	fi
	configfs_mount
	[ -d "$NVMF_CFG" ] || fail "no $NVMF_CFG (configfs)"
	NVMF_TARGET_UP=1
	mkdir "$NVMF_SUBSYS" || fail "mkdir subsystem"
	echo 1 > "$NVMF_SUBSYS/attr_allow_any_host"
	mkdir "$NVMF_SUBSYS/namespaces/1"
	echo -n /dev/ram0 > "$NVMF_SUBSYS/namespaces/1/device_path"
	echo 1 > "$NVMF_SUBSYS/namespaces/1/enable" || fail "namespace enable"
	mkdir "$NVMF_PORT_DIR"
	echo rdma > "$NVMF_PORT_DIR/addr_trtype"
	echo ipv4 > "$NVMF_PORT_DIR/addr_adrfam"
	echo "$1" > "$NVMF_PORT_DIR/addr_traddr"
	echo "$NVMF_TRSVCID" > "$NVMF_PORT_DIR/addr_trsvcid"
	nvmf_port_link
}

# nvmf_port_link, nvmf_port_unlink: put the subsystem on port 1, take it
# off. The port listens only while it has a subsystem: unlinking the last
# one also closes the listener, and nvmet drops the subsystem's
# controllers on that port.
nvmf_port_link() {
	log "+ ln -s subsystems/$NVMF_NQN ports/1/subsystems/"
	ln -s "$NVMF_SUBSYS" "$NVMF_PORT_DIR/subsystems/$NVMF_NQN" ||
		fail "port enable (nvmet-rdma could not listen on ${RDMA_DEV:-the RDMA device})"
}

nvmf_port_unlink() {
	log "+ rm ports/1/subsystems/$NVMF_NQN"
	rm "$NVMF_PORT_DIR/subsystems/$NVMF_NQN" || fail "could not take the subsystem off port 1"
}

# nvmf_target_down: remove what nvmf_target_up made; quiet, and safe to
# call again or after a partial nvmf_target_up.
nvmf_target_down() {
	[ "$NVMF_TARGET_UP" = 1 ] || return 0
	rm -f "$NVMF_PORT_DIR/subsystems/$NVMF_NQN"
	[ -d "$NVMF_PORT_DIR" ] && rmdir "$NVMF_PORT_DIR"
	if [ -d "$NVMF_SUBSYS" ]; then
		[ -d "$NVMF_SUBSYS/namespaces/1" ] &&
			echo 0 > "$NVMF_SUBSYS/namespaces/1/enable" &&
			rmdir "$NVMF_SUBSYS/namespaces/1"
		rmdir "$NVMF_SUBSYS"
	fi
	NVMF_TARGET_UP=0
	configfs_umount
	return 0
}

# --- host ---------------------------------------------------------------------

# The controller the host made for NVMF_NQN, e.g. nvme0, or nothing.
nvmf_host_ctrl() {
	local c

	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] && [ "$(cat "$c/subsysnqn")" = "$NVMF_NQN" ] &&
			basename "$c" && return
	done
	return 0
}

nvmf_ctrl_state() { cat "/sys/class/nvme/$NVMF_CTRL/state" 2>/dev/null; }
nvmf_ctrl_is() { [ "$(nvmf_ctrl_state)" = "$1" ]; }

# The namespace's block device under NVMF_CTRL: with native multipath
# (Debian's default) the disk is the subsystem's (nvmeXn1, beside the
# controller in /sys/class/nvme-subsystem), else the controller's own.
nvmf_ns_name() {
	local s d

	for s in /sys/class/nvme-subsystem/* "/sys/class/nvme/$NVMF_CTRL"; do
		[ -e "$s/$NVMF_CTRL" ] || [ "${s##*/}" = "$NVMF_CTRL" ] || continue
		for d in "$s"/nvme*n1; do
			d=${d##*/}
			[[ $d =~ ^nvme[0-9]+n1$ ]] && [ -b "/dev/$d" ] && echo "$d" && return
		done
	done
	return 0
}

# nvmf_path_stat FIELD: a field of the controller's path to namespace 1
# in /sys/block/*/stat (5: writes completed), where blk-mq counts every
# request, whichever disk the I/O was submitted to.
nvmf_path_stat() {
	local d

	for d in "/sys/class/nvme/$NVMF_CTRL"/nvme*n1; do
		[ -e "$d/stat" ] && awk -v f="$1" '{ print $f }' "$d/stat" && return
	done
	echo 0
}

nvmf_ns_ready() { [ -n "$(nvmf_ns_name)" ]; }
nvmf_ctrl_gone() { [ -z "$(nvmf_host_ctrl)" ]; }

nvmf_wait_ns() {
	local dev=''

	NVMF_CTRL=$(nvmf_host_ctrl)
	[ -n "$NVMF_CTRL" ] || fail "no controller for $NVMF_NQN"
	wait_for "$WAIT" nvmf_ns_ready && dev=$(nvmf_ns_name)
	[ -n "$dev" ] || fail "no namespace block device for $NVMF_CTRL"
	NVMF_NS=/dev/$dev
	log "connected: $NVMF_CTRL ($(cat "/sys/class/nvme/$NVMF_CTRL/transport")," \
		"$(nvmf_ctrl_state)), namespace $NVMF_NS"
}

# nvmf_connect_raw ADDR: connect the way `nvme connect -t rdma` does, by
# writing the options to /dev/nvme-fabrics.
nvmf_connect_raw() {
	local opts="transport=rdma,traddr=$1,trsvcid=$NVMF_TRSVCID,nqn=$NVMF_NQN"

	run modprobe nvme-rdma || fail "modprobe nvme-rdma"
	log "+ echo $opts > /dev/nvme-fabrics"
	echo "$opts" > /dev/nvme-fabrics || fail "nvme-rdma could not connect"
	nvmf_wait_ns
}

# A host NQN and ID of this boot: nvme-cli would take /etc/nvme's, the
# same for both guests (they share the host's /).
NVMF_HOSTID=$(cat /proc/sys/kernel/random/uuid)
NVMF_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$NVMF_HOSTID

nvmf_host_args() {
	echo "-t rdma -a $1 -s $NVMF_TRSVCID -q $NVMF_HOSTNQN -I $NVMF_HOSTID"
}

# nvmf_discover ADDR: the discovery controller at ADDR lists NVMF_NQN.
nvmf_discover() {
	local out=discover.out

	run modprobe nvme-rdma || fail "modprobe nvme-rdma"
	# shellcheck disable=SC2046
	run nvme discover $(nvmf_host_args "$1") > "$out" 2>&1 ||
		{ cat "$out"; fail "nvme discover at $1 failed"; }
	cat "$out"
	grep -qE "^subnqn: +$NVMF_NQN\$" "$out" || fail "discovery at $1 does not list $NVMF_NQN"
	grep -qE "^trtype: +rdma\$" "$out" || fail "discovery at $1 lists no rdma transport"
}

# nvmf_connect ADDR [nvme connect options...]: nvme connect -t rdma with
# one write queue and one poll queue besides the default one, when this
# nvme-cli has -W/-P; the kernel must map them (its "mapped
# default/read/poll queues" line; nvme-rdma caps the default and read
# queues at the device's completion vectors and the CPUs).
nvmf_connect() {
	local addr=$1 queues=() out=connect.out help mark

	shift
	mark=$(dmesg | wc -l)
	help=$(nvme connect --help 2>&1 || true)
	[[ $help == *--nr-write-queues* ]] && queues+=(-W 1)
	[[ $help == *--nr-poll-queues* ]] && queues+=(-P 1)
	# shellcheck disable=SC2046
	run nvme connect $(nvmf_host_args "$addr") -n "$NVMF_NQN" "${queues[@]}" "$@" \
		> "$out" 2>&1 || { cat "$out"; fail "nvme connect to $addr failed"; }
	cat "$out"
	nvmf_wait_ns
	[[ " ${queues[*]} " == *" -P "* ]] || return 0
	dmesg | tail -n +$((mark + 1)) | grep -E "$NVMF_CTRL: mapped [0-9]+/[0-9]+/[1-9][0-9]* default/read/poll" ||
		fail "$NVMF_CTRL has no poll queue though connected with ${queues[*]}"
	NVMF_POLL_QUEUES=1
}

# nvmf_disconnect: delete the controller and wait until it is gone.
nvmf_disconnect() {
	[ -n "$NVMF_CTRL" ] || return 0
	log "+ delete $NVMF_CTRL"
	[ -e "/sys/class/nvme/$NVMF_CTRL/delete_controller" ] &&
		echo 1 > "/sys/class/nvme/$NVMF_CTRL/delete_controller"
	wait_for "$WAIT" nvmf_ctrl_gone ||
		fail "controller $NVMF_CTRL still there after delete_controller"
	NVMF_CTRL='' NVMF_NS='' NVMF_POLL_QUEUES=0
}

# --- I/O ----------------------------------------------------------------------

# nvmf_fio_start OUT FIO-OPTIONS...: fio on NVMF_NS in the background,
# output in OUT (NVMF_FIO_PID).
nvmf_fio_start() {
	local out=$1

	shift
	log "+ fio --filename=$NVMF_NS $* > $out &"
	fio --filename="$NVMF_NS" "$@" --output="$out" &
	NVMF_FIO_PID=$!
}

# nvmf_fio_finish OUT: fio exited 0, reported no error and verified.
nvmf_fio_finish() {
	local rc=0

	wait "$NVMF_FIO_PID" || rc=$?
	NVMF_FIO_PID=''
	cat "$1"
	[ "$rc" = 0 ] || fail "fio exited with status $rc"
	if ! grep -qE 'err= *0' "$1" || grep -qE 'err= *[1-9]' "$1"; then
		fail "fio reported an error"
	fi
	! grep -qiE 'verify failed|bad (magic|header)' "$1" || fail "fio verify found bad data"
}

# fio options: random 4 KiB writes with crc32c verify headers, each
# block read back and checked once all are written; NVMF_FIO_AIO is a job
# at queue depth 16, NVMF_FIO_POLLED one whose every I/O is polled for
# (RWF_HIPRI: the controller's poll queue, whose CQ nvme-rdma polls
# itself, IB_POLL_DIRECT).
NVMF_FIO_COMMON=(--eta=never --direct=1 --rw=randwrite --bs=4k --verify=crc32c --verify_fatal=1
	--do_verify=1)
NVMF_FIO_AIO=(--name=aio --ioengine=libaio --iodepth=16)
NVMF_FIO_POLLED=(--name=polled --ioengine=pvsync2 --hipri=1)

# nvmf_fio_verify OUT MIB: MIB MiB verified, the first half by the AIO
# job, the second by the polled one, side by side.
nvmf_fio_verify() {
	local half=$(($2 * 512))

	# With a poll queue the namespace takes polled I/O, else the kernel
	# would quietly complete the "polled" job through interrupts.
	[ "$NVMF_POLL_QUEUES" = 0 ] || [ "$(cat "/sys/block/${NVMF_NS#/dev/}/queue/io_poll")" = 1 ] ||
		fail "$NVMF_NS does not take polled I/O (queue/io_poll) though $NVMF_CTRL has a poll queue"
	nvmf_fio_start "$1" "${NVMF_FIO_COMMON[@]}" --size="${half}k" \
		"${NVMF_FIO_AIO[@]}" --offset=0 "${NVMF_FIO_POLLED[@]}" --offset="${half}k"
	nvmf_fio_finish "$1"
	log "fio: $2 MiB of random writes verified (crc32c), half of them polled"
}

# --- two hosts ----------------------------------------------------------------

# nvmf_across_link MIB: one connection across the link, host 0 the target
# on its RDMA_DEV, host 1 the host (nvmf_connect, nvmf_fio_verify MIB);
# both hosts call it. Each host's RDMA_DEV must hold what it held before
# the connection afterwards; the target is down again.
nvmf_across_link() {
	local counts

	NVMF_RAM_MIB=$1
	[ "$SROCE_HOST" = 1 ] || nvmf_target_up "$SROCE_IP"
	counts=$(nvmf_res_but_cq "$RDMA_DEV")
	barrier nvmf-target-up
	[ "$SROCE_HOST" = 0 ] || nvmf_discover "$SROCE_PEER_IP"
	barrier nvmf-discovered
	nvmf_res_settle "$RDMA_DEV" "$counts"
	barrier nvmf-settled
	[ "$SROCE_HOST" = 0 ] || nvmf_connect "$SROCE_PEER_IP"
	barrier nvmf-connected
	[ "$SROCE_HOST" = 1 ] || nvmf_expect_target_srq
	barrier nvmf-target-checked
	if [ "$SROCE_HOST" = 1 ]; then
		nvmf_fio_verify fio.out "$1"
		nvmf_disconnect
	fi
	barrier nvmf-disconnected 240
	nvmf_expect_res "$RDMA_DEV"
	nvmf_target_down
}

# nvmf_expect_target_srq: with NVMF_USE_SRQ, the connected target holds
# SRQs on RDMA_DEV.
nvmf_expect_target_srq() {
	[ "$NVMF_USE_SRQ" = 1 ] || return 0
	nvmf_res "$RDMA_DEV" | grep -qE ' srq [1-9]' ||
		fail "nvmet-rdma use_srq=1 made no SRQ on $RDMA_DEV: $(nvmf_res "$RDMA_DEV")"
	log "target's SRQs: $(nvmf_res "$RDMA_DEV")"
}

# --- state --------------------------------------------------------------------

# nvmf_res DEV: DEV's line of `rdma resource show` (pd, cq, qp, cm_id,
# mr, ctx, srq counts).
nvmf_res() {
	rdma resource show | sed -n "s/^[0-9]*: $1: //p"
}

nvmf_res_is() { [ "$(nvmf_res "$1")" = "$2" ]; }
nvmf_res_but_cq() { nvmf_res "$1" | sed 's/ cq [0-9]*//'; }
nvmf_res_but_cq_is() { [ "$(nvmf_res_but_cq "$1")" = "$2" ]; }

# nvmf_res_log DEV: its QPs, CQs, MRs and rdma_cm IDs, for a failure.
nvmf_res_log() {
	rdma res show qp link "$1/1" || true
	rdma res show cq dev "$1" || true
	rdma res show mr dev "$1" || true
	rdma res show cm_id || true
}

# nvmf_res_settle DEV COUNTS: after a first connection (discovery) is
# gone, DEV holds COUNTS (nvmf_res_but_cq before it) again; not counted
# are its CQs: the
# first connection makes ib_core's shared CQs (ib_cq_pool_get), which
# live as long as the device. Sets NVMF_RES_BEFORE to DEV's counts then:
# what every later disconnect must come back to.
nvmf_res_settle() {
	if ! wait_for "$WAIT" nvmf_res_but_cq_is "$1" "$2"; then
		nvmf_res_log "$1"
		fail "$1 holds '$(nvmf_res "$1")' after discovery, before it '$2' (but CQs)"
	fi
	NVMF_RES_BEFORE=$(nvmf_res "$1")
	log "$1 before connecting: $NVMF_RES_BEFORE"
}

# nvmf_expect_res DEV: DEV's resource counts come back to NVMF_RES_BEFORE
# (the release of nvmet-rdma's queues and device is asynchronous).
nvmf_expect_res() {
	if ! wait_for "$WAIT" nvmf_res_is "$1" "$NVMF_RES_BEFORE"; then
		nvmf_res_log "$1"
		fail "$1 holds '$(nvmf_res "$1")', before connecting '$NVMF_RES_BEFORE'"
	fi
	log "$1 back to its resources before connecting: $NVMF_RES_BEFORE"
}

# The kernel log since nvmf_dmesg_mark (the ring holds only this test's
# and the boot's lines in a shared boot: guest-init.sh empties it).
nvmf_dmesg_mark() { NVMF_DMESG_MARK=$(dmesg | wc -l); }
nvmf_dmesg() { dmesg | tail -n +$((NVMF_DMESG_MARK + 1)); }

# nvmf_check_dmesg: no NVMF_COMPLAINTS line in the log since the mark
# but those matching NVMF_EXPECTED (grep -E; a test that provokes
# errors names them there).
NVMF_EXPECTED='^$'
nvmf_check_dmesg() {
	local bad

	bad=$(nvmf_dmesg | grep -E "$NVMF_COMPLAINTS" | grep -vE "$NVMF_EXPECTED" || true)
	[ -z "$bad" ] || { echo "$bad"; fail "nvme-rdma or nvmet-rdma complained"; }
}

# nvmf_unload: the host's and the target's modules, those loaded.
NVMF_MODULES="nvme_rdma nvme_fabrics nvmet_rdma nvmet brd"
nvmf_unload() {
	# shellcheck disable=SC2086 # one word a module
	rmmod_loaded $NVMF_MODULES
}

# nvmf_cleanup: for trap EXIT. Never fails: the test's verdict stands.
nvmf_cleanup() {
	set +e
	[ -z "$NVMF_FIO_PID" ] || kill "$NVMF_FIO_PID" 2>/dev/null
	if [ -n "$NVMF_CTRL" ] || [ -n "$(nvmf_host_ctrl)" ]; then
		NVMF_CTRL=$(nvmf_host_ctrl)
		[ -z "$NVMF_CTRL" ] || echo 1 > "/sys/class/nvme/$NVMF_CTRL/delete_controller"
		wait_for "$WAIT" nvmf_ctrl_gone
	fi
	[ -z "$NVMF_FIO_PID" ] || wait "$NVMF_FIO_PID" 2>/dev/null
	nvmf_target_down 2>/dev/null
	nvmf_unload > /dev/null 2>&1
	return 0
}
