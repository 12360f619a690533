/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monotonic clock in nanoseconds, for durations (request times, the
 * loop's busy time); gr_broker_now_ms (core/context.h) is the wall clock.
 *
 * Runs on: any thread.
 */
#ifndef GR_CORE_CLOCK_H
#define GR_CORE_CLOCK_H

#include <stdint.h>

/* Nanoseconds on CLOCK_MONOTONIC: only differences mean anything. */
int64_t gr_clock_mono_ns(void);

#endif
