#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix.bash NAME [PROVIDER]: run the data-path case NAME of matrix.tsv in
# this guest (PROVIDER: sroce, the default, or rxe), e.g.
#     tests/vm/vm-run --hosts 2 tests/vm/matrix.bash two-hosts-write-bw rxe
# Sourced (run-suite.sh), it only defines matrix_names and matrix_row.

MATRIX_TSV=$(dirname "${BASH_SOURCE[0]}")/matrix.tsv

# matrix_names: every case, in the table's order.
matrix_names() {
	awk '!/^#/ && NF { print $1 }' "$MATRIX_TSV"
}

# matrix_row NAME: the row's fields after the name, or status 1 if none.
matrix_row() {
	awk -v name="$1" '!/^#/ && $1 == name { $1 = ""; print substr($0, 2); found = 1 }
		END { exit !found }' "$MATRIX_TSV"
}

# matrix_sizes SIZES: the message sizes of a pingpong SIZES field.
matrix_sizes() {
	case "${1%+ipv6}" in
	default) echo "$PINGPONG_SIZES" ;;
	full) echo "$PINGPONG_FULL_SIZES" ;;
	*) fail "matrix.tsv: unknown pingpong sizes '$1'" ;;
	esac
}

# matrix_pingpong WHERE SIZES ITERS PASSES: each pass over the sizes, then
# the IPv6 sizes when SIZES ends in +ipv6.
matrix_pingpong() {
	local where=$1 sizes=$2 iters=$3 passes=$4 pass

	for pass in ${passes//,/ }; do
		if [ "$pass" = poll ]; then
			pingpong_sizes "$where" "$iters" "$(matrix_sizes "$sizes")"
		else
			pingpong_sizes "$where" "$iters" "$(matrix_sizes "$sizes")" "$pass"
		fi
	done
	[ "$sizes" != "${sizes%+ipv6}" ] || return 0
	rdma_use_ipv6_gid
	[ "$where" = loopback ] || wait_peer_ipv6
	pingpong_sizes "$where" "$iters" "$PINGPONG_IPV6_SIZES"
}

# matrix_perftest WHERE TOOL SIZES ITERS OPTIONS: SIZES "all" (and OPTIONS
# "-") is perftest_all_sizes; else one run per size of SIZES (comma-
# separated) with ITERS iterations and the OPTIONS (comma-separated words).
matrix_perftest() {
	local where=$1 tool=$2 sizes=$3 iters=$4 options=() size

	[ "$5" = - ] || read -ra options <<< "${5//,/ }"
	if [ "$sizes" = all ]; then
		[ ${#options[@]} = 0 ] || fail "matrix.tsv: perftest options '$5' need sizes, not 'all'"
		perftest_all_sizes "$where" "$tool"
		return
	fi
	[ "$iters" != - ] || iters=$PERF_ITERS
	for size in ${sizes//,/ }; do
		"perftest_$where" "$tool" "${tool##*_}" -s "$size" -n "$iters" \
			-u "$PERF_QP_TIMEOUT" "${options[@]}"
	done
}

# matrix_uses_rdma_cm PASSES: a perftest row whose options have -R.
matrix_uses_rdma_cm() {
	case ",$1," in *,-R,*) return 0 ;; esac
	return 1
}

matrix_main() {
	local name=${1:-} row hosts timeout tier tool where sizes iters passes

	row=$(matrix_row "$name") || fail "no case '$name' in matrix.tsv"
	shift
	# shellcheck disable=SC2034 # timeout and tier are run-suite.sh's
	read -r hosts timeout tier tool where sizes iters passes <<< "$row"
	log "matrix case $name: $tool $where, sizes $sizes, iterations $iters, passes $passes"
	rdma_setup "$@"
	[ "$hosts" = 1 ] || wait_peer 30
	if [ "${tool%_pingpong}" = "$tool" ] && matrix_uses_rdma_cm "$passes"; then
		if [ "$hosts" = 1 ]; then rdma_cm_setup; else rdma_cm_setup peer; fi
	fi
	case "$tool" in
	ibv_rc_pingpong | ibv_uc_pingpong)
		PINGPONG_TOOL=$tool
		matrix_pingpong "$where" "$sizes" "$iters" "$passes" ;;
	ib_*) matrix_perftest "$where" "$tool" "$sizes" "$iters" "$passes" ;;
	*) fail "matrix.tsv: unknown tool '$tool'" ;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	. "$SROCE_TOP/tests/vm/lib.sh"
	. "$SROCE_TOP/tests/vm/lib-rdma.bash"
	# Log lines carry the case's name, as a script's carry its own.
	TEST_NAME=${1:-matrix}
	matrix_main "$@"
fi
