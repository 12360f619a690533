/* SPDX-License-Identifier: Apache-2.0 */
#include "observe/metrics.h"

#include <stddef.h>

#include "observe/metrics_collectors.h"

/* In page order; each collector's file is named after its area. */
static gr_metrics_collector_fn *const collectors[] = {
    gr_metrics_collect_process,
    gr_metrics_collect_requests,
    gr_metrics_collect_topics,
    gr_metrics_collect_loop,
};

void gr_metrics_render(gr_broker_t *b, gr_writer_t *out)
{
    for (size_t i = 0; i < sizeof collectors / sizeof collectors[0]; i++)
        collectors[i](b, out);
}
