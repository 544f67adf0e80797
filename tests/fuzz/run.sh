#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [SECONDS] - build the header-codec fuzzer (hdr_fuzz.c, libFuzzer with
# AddressSanitizer and UBSan, clang from Debian's clang and libclang-rt-14-dev)
# and run it for SECONDS (default $SROCE_FUZZ_SECONDS or 20) from the seed
# corpus (seeds.c) plus whatever earlier runs kept in build/fuzz/corpus.
# Exits non-zero on a finding; the crashing input is in build/fuzz/.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
SRC=$TOP/drivers/infiniband/sw/sroce
OUT=$TOP/build/fuzz
SECONDS_TO_RUN=${1:-${SROCE_FUZZ_SECONDS:-20}}
CC=${CLANG:-clang}
CFLAGS=(-g -O1 -Wall -I"$HERE/shim" -I"$SRC" -DSROCE_UNALIGNED_H='"unaligned.h"')
CODEC=("$SRC/sroce_hdr.c" "$SRC/sroce_opcode.c")

mkdir -p "$OUT/corpus" "$OUT/seeds"
"$CC" "${CFLAGS[@]}" -o "$OUT/seeds-gen" "$HERE/seeds.c" "${CODEC[@]}"
"$OUT/seeds-gen" "$OUT/seeds"
"$CC" "${CFLAGS[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-o "$OUT/hdr_fuzz" "$HERE/hdr_fuzz.c" "${CODEC[@]}"
echo "fuzz: hdr_fuzz for ${SECONDS_TO_RUN}s from $(ls "$OUT/seeds" | wc -l) seeds"
cd "$OUT"
status=0
./hdr_fuzz -max_total_time="$SECONDS_TO_RUN" -error_exitcode=1 -print_final_stats=1 -artifact_prefix="$OUT/" \
	corpus seeds > hdr_fuzz.log 2>&1 || status=$?
grep -E '^(#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|==[0-9]+==|SUMMARY|hdr_fuzz:|Test unit written)' hdr_fuzz.log || true
[ "$status" = 0 ] && echo "fuzz: hdr_fuzz clean" || echo "fuzz: hdr_fuzz FOUND A PROBLEM (status $status)"
exit "$status"
