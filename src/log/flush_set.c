/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The flush set (flush_set.h): an intrusive doubly linked list through the
 * logs (log_int.h's flush_prev/flush_next), so that a log joins, leaves and
 * is freed in O(1) and the tick walks only the members.
 *
 * Runs on: loop thread.
 */
#include "log/flush_set.h"

#include "log/log.h"
#include "log/log_int.h"

void gr_log_flush_set_init(gr_log_flush_set_t *set)
{
    set->head = NULL;
    set->count = 0;
    set->now_ms = INT64_MIN;
}

void gr_log_flush_set_join(gr_log_t *log)
{
    gr_log_flush_set_t *set = log->flush_set;
    if (!set || log->in_flush_set || log->config.flush_ms == INT64_MAX ||
        log->recovery_point >= gr_log_end_offset(log))
        return;
    log->flush_prev = NULL;
    log->flush_next = set->head;
    if (set->head)
        set->head->flush_prev = log;
    set->head = log;
    set->count++;
    log->in_flush_set = true;
}

void gr_log_flush_set_leave(gr_log_t *log)
{
    gr_log_flush_set_t *set = log->flush_set;
    if (!log->in_flush_set)
        return;
    if (log->flush_prev)
        log->flush_prev->flush_next = log->flush_next;
    else
        set->head = log->flush_next;
    if (log->flush_next)
        log->flush_next->flush_prev = log->flush_prev;
    log->flush_prev = log->flush_next = NULL;
    log->in_flush_set = false;
    set->count--;
}

size_t gr_log_flush_set_run(gr_log_flush_set_t *set, int64_t now_ms,
                            gr_log_flush_error_fn *on_error, void *arg)
{
    if (now_ms > set->now_ms)
        set->now_ms = now_ms;
    size_t flushed = 0;
    gr_log_t *next;
    /* A flush takes only its own log out of the list: next stays valid. */
    for (gr_log_t *log = set->head; log; log = next) {
        next = log->flush_next;
        int rc = gr_log_maybe_flush(log, now_ms);
        if (rc > 0)
            flushed++;
        else if (rc < 0 && on_error)
            on_error(arg, log, rc);
    }
    return flushed;
}

size_t gr_log_flush_set_count(const gr_log_flush_set_t *set)
{
    return set->count;
}
