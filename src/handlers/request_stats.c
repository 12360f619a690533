/* SPDX-License-Identifier: Apache-2.0 */
/* Per-API request counts, errors and times: see request_stats.h. */
#include "handlers/request_stats.h"

#include <stdlib.h>

gr_request_stats_t *gr_request_stats_new(void)
{
    return calloc(1, sizeof(gr_request_stats_t));
}

void gr_request_stats_free(gr_request_stats_t *s)
{
    free(s);
}

static int64_t at_least_zero(int64_t v)
{
    return v > 0 ? v : 0;
}

void gr_request_stats_times(const gr_slot_times_t *t, int64_t out_ns[GR_REQUEST_TIMES])
{
    out_ns[GR_REQUEST_TIME_TOTAL] = at_least_zero(t->sent_ns - t->read_ns);
    out_ns[GR_REQUEST_TIME_QUEUE] = at_least_zero(t->dispatch_ns - t->read_ns);
    out_ns[GR_REQUEST_TIME_REMOTE] = at_least_zero(t->deferred_ns);
    out_ns[GR_REQUEST_TIME_LOCAL] = at_least_zero(t->complete_ns - t->dispatch_ns - t->deferred_ns);
    out_ns[GR_REQUEST_TIME_SEND] = at_least_zero(t->sent_ns - t->complete_ns);
}

void gr_request_stats_record(gr_request_stats_t *s, int16_t key, int16_t version,
                             const int64_t times_ns[GR_REQUEST_TIMES])
{
    if (key < 0 || key >= GR_REQUEST_STATS_APIS)
        return;
    gr_request_api_stats_t *a = &s->apis[key];
    if (version >= 0 && version < GR_REQUEST_STATS_VERSIONS)
        a->requests[version]++;
    for (int i = 0; i < GR_REQUEST_TIMES; i++)
        gr_histogram_record(&a->times[i], (uint64_t)times_ns[i]);
}

void gr_request_stats_error(gr_request_stats_t *s, int16_t key, gr_kerr_t err)
{
    if (key < 0 || key >= GR_REQUEST_STATS_APIS)
        return;
    int i = err >= GR_KERR_UNKNOWN_SERVER_ERROR && err <= GR_KERR_MAX ? err + 1
                                                                      : GR_REQUEST_STATS_ERRORS - 1;
    s->apis[key].errors[i]++;
}

gr_kerr_t gr_request_stats_error_code(int i)
{
    return (gr_kerr_t)(i - 1);
}

void gr_request_stats_window(gr_request_stats_t *s, int16_t key, gr_request_time_t time,
                             int64_t now_ns, gr_histogram_t *out)
{
    if (now_ns - s->marked_at_ns >= GR_REQUEST_STATS_WINDOW_NS) {
        for (int k = 0; k < GR_REQUEST_STATS_APIS; k++) {
            gr_request_api_stats_t *a = &s->apis[k];
            for (int i = 0; i < GR_REQUEST_TIMES; i++) {
                a->marks[0][i] = a->marks[1][i];
                a->marks[1][i] = a->times[i];
            }
        }
        s->marked_at_ns = now_ns;
    }
    gr_request_api_stats_t *a = &s->apis[key];
    gr_histogram_subtract(out, &a->times[time], &a->marks[0][time]);
}
