/* SPDX-License-Identifier: Apache-2.0 */
/* A partition's leadership, appends and waiting fetches; see partition.h. */
#include "partition/partition.h"

#include <string.h>

gr_kerr_t gr_partition_serve_error(const gr_partition_t *p, int32_t self)
{
    if (!p)
        return GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
    return gr_partition_led_by(p, self) ? GR_KERR_NONE : GR_KERR_NOT_LEADER_OR_FOLLOWER;
}

int gr_partition_append(gr_partition_t *p, uint8_t *data, size_t len, int64_t now_ms,
                        gr_log_append_info_t *out)
{
    memset(out, 0, sizeof *out);
    int rc = gr_log_append(p->log, data, len, p->leader_epoch, now_ms, out);
    if (rc == 0 || out->records > 0) {
        gr_log_set_high_watermark(p->log, gr_log_end_offset(p->log));
        gr_partition_wake(p);
    }
    return rc;
}

void gr_partition_wait(gr_partition_t *p, gr_partition_waiter_t *w)
{
    gr_partition_unwait(w); /* precondition; never linked twice */
    w->partition = p;
    w->prev = NULL;
    w->next = p->waiters;
    w->seen_wake = p->wake_count;
    if (p->waiters)
        p->waiters->prev = w;
    p->waiters = w;
}

void gr_partition_unwait(gr_partition_waiter_t *w)
{
    if (!w->partition)
        return;
    if (w->prev)
        w->prev->next = w->next;
    else
        w->partition->waiters = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->partition = NULL;
    w->prev = w->next = NULL;
}

void gr_partition_wake(gr_partition_t *p)
{
    uint32_t wake = ++p->wake_count;
    gr_partition_waiter_t *w = p->waiters;
    while (w) {
        if (w->seen_wake == wake) {
            w = w->next;
            continue;
        }
        w->seen_wake = wake;
        w->wake(w->owner, p, false);
        w = p->waiters;
    }
}

void gr_partition_wake_all(gr_partition_t *p)
{
    while (p->waiters) {
        gr_partition_waiter_t *w = p->waiters;
        w->wake(w->owner, p, true);
        /* An owner that did not unlink would loop forever: unlink it here. */
        if (p->waiters == w)
            gr_partition_unwait(w);
    }
}
