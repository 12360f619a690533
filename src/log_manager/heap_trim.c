/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gives freed heap back to the OS after bursts (gr_heap_trim, heap_trim.h).
 *
 * glibc returns memory to the OS only from the top of its heap: what a burst
 * (creating 100,000 partitions, a metadata store rewrite) frees in the middle
 * stays resident, ~33 MB (a sixth of the RSS) on a broker idle with 100,000
 * partitions. malloc_trim(0) releases those free pages; it is called only
 * when the free bytes inside the heap (mallinfo2) pass a threshold, so an
 * idle broker without such garbage does nothing here.
 *
 * Runs on: loop thread (the log manager's checkpoint tick).
 */
#include "log_manager/heap_trim.h"

#include <inttypes.h>

#include "core/clock.h"
#include "core/context.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

#define GR_NS_PER_MS 1000000

void gr_heap_trim(gr_broker_t *b, size_t min_free_bytes)
{
    struct mallinfo2 before = mallinfo2();
    if (before.fordblks < min_free_bytes)
        return;
    int64_t t0 = gr_clock_mono_ns();
    (void)malloc_trim(0); /* 1 released, 0 nothing to release: both fine */
    int64_t t1 = gr_clock_mono_ns();
    gr_logf(&b->log, GR_LOG_DEBUG, "log",
            "%zu bytes free in the heap: returned its free pages to the OS in %" PRId64 " ms",
            before.fordblks, (t1 - t0) / GR_NS_PER_MS);
}
#else
void gr_heap_trim(gr_broker_t *b, size_t min_free_bytes)
{
    (void)b;
    (void)min_free_bytes; /* other allocators return memory on their own terms */
}
#endif
