/* SPDX-License-Identifier: Apache-2.0 */
/* A partition's leadership, appends and waiting fetches; see partition.h. */
#include "partition/partition.h"

#include <stdlib.h>
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
        if (!gr_partition_update_high_watermark(p))
            gr_partition_wake(p); /* followers wait for the log end, not the watermark */
    }
    return rc;
}

void gr_partition_drop_followers(gr_partition_t *p)
{
    free(p->followers);
    p->followers = NULL;
    p->follower_count = 0;
    free(p->proposed_isr);
    p->proposed_isr = NULL;
    p->proposed_isr_count = 0;
}

void gr_partition_fini(gr_partition_t *p)
{
    gr_partition_drop_followers(p);
    free(p->replicas);
    free(p->isr);
    p->replicas = p->isr = NULL;
    p->replica_count = p->isr_count = 0;
}

bool gr_partition_in_isr(const gr_partition_t *p, int32_t id)
{
    for (int32_t i = 0; i < p->isr_count; i++)
        if (p->isr[i] == id)
            return true;
    return false;
}

/* The ISR with the proposed change's new members (removed ones stay until agreed). */
static int32_t maximal_isr(const gr_partition_t *p, int32_t *out, int32_t cap)
{
    int32_t n = 0;
    for (int32_t i = 0; i < p->isr_count && n < cap; i++)
        out[n++] = p->isr[i];
    for (int32_t i = 0; p->proposed_isr && i < p->proposed_isr_count && n < cap; i++)
        if (!gr_partition_in_isr(p, p->proposed_isr[i]))
            out[n++] = p->proposed_isr[i];
    return n;
}

bool gr_partition_update_high_watermark(gr_partition_t *p)
{
    int32_t cap = p->isr_count + p->proposed_isr_count + 1;
    int32_t small[16];
    int32_t *isr = cap <= 16 ? small : malloc(sizeof(int32_t) * (size_t)cap);
    if (!isr)
        return false; /* the watermark waits for the next update */
    int32_t n = maximal_isr(p, isr, cap);
    int64_t before = gr_log_high_watermark(p->log);
    int64_t hw = n == 0 ? gr_log_end_offset(p->log)
                        : gr_isr_high_watermark(before, p->leader_id, gr_log_end_offset(p->log),
                                                isr, n, p->followers, p->follower_count);
    if (isr != small)
        free(isr);
    if (hw <= before)
        return false;
    gr_log_set_high_watermark(p->log, hw);
    gr_partition_wake(p);
    return true;
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
