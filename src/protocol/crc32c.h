/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
 * Kafka's v2 record batches.
 *
 * The running value is the finished CRC of the bytes so far (start with 0),
 * so gr_crc32c(gr_crc32c(0, a, n), b, m) is the CRC of a followed by b. On
 * x86-64 CPUs with SSE4.2 the crc32 instruction is used, chosen at run time;
 * elsewhere a slicing-by-8 table. Both give the same results.
 */
#ifndef GR_PROTOCOL_CRC32C_H
#define GR_PROTOCOL_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CRC-32C of n bytes at p, continuing from crc (0 to start). Thread-safe. */
uint32_t gr_crc32c(uint32_t crc, const void *p, size_t n);

/* The portable table implementation (always available; for tests). */
uint32_t gr_crc32c_sw(uint32_t crc, const void *p, size_t n);

/* True when this CPU has the hardware instruction gr_crc32c_hw() uses. */
bool gr_crc32c_hw_available(void);

/*
 * The hardware implementation. Precondition: gr_crc32c_hw_available();
 * without hardware support it falls back to gr_crc32c_sw().
 */
uint32_t gr_crc32c_hw(uint32_t crc, const void *p, size_t n);

#endif
