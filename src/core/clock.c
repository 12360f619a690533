/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's wall clock (declared in core/context.h), in milliseconds
 * since the epoch: record timestamps, expiries and deadlines all read it.
 * It lives in core/ because every folder above uses it; taking the broker
 * keeps a way open for a clock per broker (tests fake time through the
 * clocks they inject into the state machines instead).
 *
 * Runs on: any thread (it reads no broker state).
 */
#include <time.h>

#include "core/clock.h"
#include "core/context.h"

#define MS_PER_SEC 1000
#define NS_PER_MS  1000000
#define NS_PER_SEC 1000000000

int64_t gr_broker_now_ms(const gr_broker_t *b)
{
    (void)b;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * MS_PER_SEC + ts.tv_nsec / NS_PER_MS;
}

int64_t gr_clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}
