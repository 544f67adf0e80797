/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SROCE_FUZZ_SHIM_BITS_H
#define SROCE_FUZZ_SHIM_BITS_H

#define BIT(n)	(1UL << (n))

#endif
