/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's types, for the codec fuzzer only. */
#ifndef SROCE_FUZZ_SHIM_TYPES_H
#define SROCE_FUZZ_SHIM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;

#endif
