/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Acknowledgements and writes of the share manager (share_manager.h).
 *
 * An acknowledgement is applied to the in-memory share-partition at once
 * (all or nothing, share_partition.h) and then the share-partition's whole
 * durable state (gr_share_partition_export: start offset and batches) is
 * written through the persister; the caller's callback runs when that
 * write is on the __share_group_state ISR, and only then does ShareFetch /
 * ShareAcknowledge answer. One write is in flight per share-partition at a
 * time (gr_share_entry_write); a later write carries every earlier change
 * too. A failed write marks the state changed, so the next write carries
 * it again, and answers the acknowledgement with the persister's error.
 *
 * Releases (a closed session) and lock expiry are written the same way,
 * with nobody waiting.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "metadata/topics.h"
#include "partition/partition.h"
#include "share/share_manager_int.h"

static int entry_send(share_entry_t *e);

/* Answers the changes the write just done carried (those sent) with err. */
static void answer_sent(share_entry_t *e, gr_kerr_t err)
{
    share_write_t *done = NULL, **at = &e->writes;
    while (*at) {
        share_write_t *w = *at;
        if (!w->sent) {
            at = &w->next;
            continue;
        }
        *at = w->next;
        w->next = done;
        done = w;
    }
    while (done) {
        share_write_t *w = done;
        done = w->next;
        if (w->done)
            w->done(w->arg, err);
        free(w);
    }
}

static void on_written(void *opaque, gr_kerr_t err)
{
    share_entry_t *e = opaque;
    e->writing = false;
    if (err && e->sp) {
        gr_share_partition_mark_changed(e->sp);
        gr_logf(&e->m->b->log, GR_LOG_WARN, "share", "share-partition of group %s: write: %s",
                e->group_id, gr_kerr_name(err));
    }
    answer_sent(e, err);
    if (e->writes && entry_send(e) < 0) { /* the changes made meanwhile, in one write */
        for (share_write_t *w = e->writes; w; w = w->next)
            w->sent = true;
        answer_sent(e, GR_KERR_UNKNOWN_SERVER_ERROR);
    }
}

/* Writes the whole state now for every change waiting (marked sent); -errno: nothing sent. */
static int entry_send(share_entry_t *e)
{
    gr_share_state_t state;
    int rc = gr_share_partition_export(e->sp, &state);
    if (rc == 0) {
        state.state_epoch = e->state_epoch;
        state.leader_epoch = e->leader_epoch;
        gr_share_key_t key = {e->group_id, e->topic_id, e->partition};
        rc = gr_share_persister_write(e->m->persister, &key, &state,
                                      GR_SHARE_DELIVERY_COMPLETE_UNKNOWN, on_written, e);
        free(state.batches);
    }
    if (rc < 0) {
        gr_share_partition_mark_changed(e->sp);
        return rc;
    }
    for (share_write_t *w = e->writes; w; w = w->next)
        w->sent = true;
    e->writing = true;
    return 0;
}

/*
 * One write in flight per share-partition: each carries the whole state, and
 * the share coordinator keeps whichever arrives last, so two in flight at
 * once (sent in either order from one loop iteration, or one retried after
 * the other) could leave an older state durable over a newer one, an
 * acknowledged record available again. Changes made while a write is in
 * flight wait for it and go together in the next.
 */
int gr_share_entry_write(share_entry_t *e, gr_share_ack_done_fn *done, void *arg)
{
    share_write_t *w = calloc(1, sizeof *w);
    if (!w)
        return -ENOMEM;
    w->entry = e;
    w->done = done;
    w->arg = arg;
    w->next = e->writes;
    e->writes = w;
    if (e->writing)
        return 0;
    int rc = entry_send(e); /* nothing else waits when no write is in flight */
    if (rc < 0) {
        e->writes = w->next;
        free(w);
    }
    return rc;
}

gr_kerr_t gr_share_manager_acknowledge(gr_share_manager_t *m, gr_str_t group, gr_partition_t *p,
                                       gr_str_t member, const gr_share_ack_batch_t *batches,
                                       int32_t batch_count, bool renew, gr_share_ack_done_fn *done,
                                       void *arg)
{
    share_entry_t *e = gr_share_manager_entry(m, group, p->topic->id, p->index);
    if (!e || e->phase != SHARE_READY)
        return GR_KERR_INVALID_RECORD_STATE; /* nothing was acquired here */
    char member_id[GR_SHARE_MEMBER_ID_MAX];
    gr_share_member_id(member, member_id);
    gr_kerr_t err = gr_share_partition_acknowledge(e->sp, member_id, batches, batch_count, renew,
                                                   gr_broker_now_ms(m->b));
    if (err)
        return err;
    gr_share_entry_arm(e);
    int rc = gr_share_entry_write(e, done, arg);
    /* Released records are acquirable again whether or not the write went out. */
    gr_share_entry_wake(e);
    return rc < 0 ? GR_KERR_UNKNOWN_SERVER_ERROR : GR_KERR_NONE;
}

void gr_share_manager_forget(gr_share_manager_t *m, const void *arg)
{
    for (size_t i = 0; i < GR_SHARE_MANAGER_BUCKETS; i++)
        for (share_entry_t *e = m->buckets[i]; e; e = e->next)
            for (share_write_t *w = e->writes; w; w = w->next)
                if (w->arg == arg)
                    w->done = NULL;
}
