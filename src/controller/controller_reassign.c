/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Partition reassignment (KIP-455), as Kafka's ZooKeeper-mode controller
 * moves replicas. With original replicas O and target T a partition goes:
 *  1. start (ctl_reassign_start, from AlterPartitionReassignments or
 *     /admin/reassign_partitions): replicas := T then O-T, adding := T-O,
 *     removing := O-T; replicas an earlier reassignment was adding that T
 *     leaves out are dropped. The topic's assignment node is written
 *     (conditionally on its version) before anything acts on it, so a
 *     controller taking over resumes from the node.
 *  2. saved: leader epoch + 1 with the ISR cut to the replicas (bump), so
 *     every replica, the new ones too, hears of the set by LeaderAndIsr;
 *     the new ones fetch, and the leader adds them to the ISR (AlterPartition).
 *  3. every member of T in the ISR: a leader from T (the current one if it
 *     is in T and live, else the first live member of T), the ISR cut to T,
 *     leader epoch + 1; then replicas := T, adding and removing emptied and
 *     saved; only then the replicas left out get StopReplica with deletion
 *     (a replica whose broker is down then keeps its files, as in Kafka;
 *     one that is still leader or in the ISR is kept until it is neither,
 *     since it may hold the only in-sync copy).
 * Cancelling is a reassignment back to O. Steps 2 and 3 run inside
 * reconcile from what the controller knows, so they need no memory of
 * their own across controllers.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "metadata/store.h"
#include "protocol/kerr.h"

static bool is_live(gr_controller_t *c, int32_t id)
{
    const gr_ctl_broker_t *br = id >= 0 ? ctl_broker_find(c, id) : NULL;
    return br && !br->shutting_down;
}

static void format_ids(char *out, size_t len, const int32_t *ids, int32_t count)
{
    size_t used = (size_t)snprintf(out, len, "[");
    for (int32_t i = 0; i < count && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, i ? ",%d" : "%d", ids[i]);
    if (used < len)
        snprintf(out + used, len - used, "]");
}

void ctl_reassign_clear(gr_ctl_partition_t *p)
{
    free(p->adding);
    free(p->removing);
    p->adding = p->removing = NULL;
    p->adding_count = p->removing_count = 0;
}

int16_t ctl_reassign_check(gr_controller_t *c, const gr_ctl_partition_t *p, const int32_t *target,
                           int32_t count)
{
    if (count <= 0)
        return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
    for (int32_t i = 0; i < count; i++) {
        int32_t id = target[i];
        bool original = ctl_ids_hold(p->replicas, p->replica_count, id) &&
                        !ctl_ids_hold(p->adding, p->adding_count, id);
        /* As Kafka: ids unique and not negative; only those to add must be registered. */
        if (id < 0 || ctl_ids_hold(target, i, id) || (!original && !ctl_broker_find(c, id)))
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
    }
    return GR_KERR_NONE;
}

/* Whether the lists computed for p are the ones it has (a repeated request). */
static bool same_move(const gr_ctl_partition_t *p, const int32_t *replicas, int32_t rn,
                      int32_t adding_count, int32_t removing_count, int32_t dropped)
{
    return dropped == 0 && rn == p->replica_count && adding_count == p->adding_count &&
           removing_count == p->removing_count &&
           memcmp(replicas, p->replicas, sizeof(int32_t) * (size_t)rn) == 0;
}

/* Moves the lists into p; dropped replicas join p->dropping. */
static void set_move(gr_ctl_partition_t *p, int32_t *replicas, int32_t rn, int32_t *adding,
                     int32_t an, int32_t *removing, int32_t remn, const int32_t *dropped,
                     int32_t dn)
{
    for (int32_t i = 0; i < dn; i++)
        if (!ctl_ids_hold(p->dropping, p->dropping_count, dropped[i]))
            p->dropping[p->dropping_count++] = dropped[i];
    free(p->replicas);
    ctl_reassign_clear(p);
    p->replicas = replicas;
    p->replica_count = rn;
    p->adding = adding;
    p->adding_count = an;
    p->removing = removing;
    p->removing_count = remn;
}

int ctl_reassign_start(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index, const int32_t *target,
                       int32_t count, uint64_t *edit)
{
    gr_ctl_partition_t *p = &t->partitions[index];
    size_t room = (size_t)p->replica_count + (size_t)count + 1;
    int32_t *original = malloc(room * sizeof(int32_t)), *replicas = malloc(room * sizeof(int32_t));
    int32_t *adding = malloc(room * sizeof(int32_t)), *removing = malloc(room * sizeof(int32_t));
    int32_t *dropped = malloc(room * sizeof(int32_t));
    int32_t *dropping = realloc(p->dropping, (room + (size_t)p->dropping_count) * sizeof(int32_t));
    if (dropping)
        p->dropping = dropping;
    int rc = -ENOMEM;
    if (!original || !replicas || !adding || !removing || !dropped || !dropping)
        goto out;
    int32_t on = ctl_ids_minus(p->replicas, p->replica_count, p->adding, p->adding_count, original);
    memcpy(replicas, target, sizeof(int32_t) * (size_t)count);
    int32_t rn = count + ctl_ids_minus(original, on, target, count, replicas + count);
    int32_t an = ctl_ids_minus(target, count, original, on, adding);
    int32_t remn = ctl_ids_minus(original, on, target, count, removing);
    int32_t dn = ctl_ids_minus(p->replicas, p->replica_count, replicas, rn, dropped);
    rc = 0;
    if (same_move(p, replicas, rn, an, remn, dn)) {
        *edit = t->edits; /* answered once what is pending is saved */
        goto out;
    }
    char from[128], to[128];
    format_ids(from, sizeof from, p->replicas, p->replica_count);
    format_ids(to, sizeof to, target, count);
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s-%d: reassigning replicas %s to %s", t->name,
            index, from, to);
    set_move(p, replicas, rn, adding, an, removing, remn, dropped, dn);
    replicas = adding = removing = NULL;
    p->reassign_bump = true;
    p->changed = true;
    c->metadata_dirty = true;
    *edit = ++t->edits;
out:
    free(original);
    free(replicas);
    free(adding);
    free(removing);
    free(dropped);
    return rc;
}

/* ---- saving the assignment ---------------------------------------------------------- */

static void on_assignment_saved(void *opaque, int rc, const gr_store_stat_t *stat)
{
    ctl_op_t *op = opaque;
    if (!ctl_op_current(op))
        return;
    gr_controller_t *c = op->c;
    uint64_t covered = *(uint64_t *)op->data;
    gr_ctl_topic_t *t = ctl_topic_find(c, op->name);
    c->writes_pending--;
    if (t && rc == GR_STORE_OK) {
        t->assignment_writing = false;
        t->assignment_version = stat->version;
        t->saved = covered;
        ctl_reassign_saved(c, t->name, covered, GR_KERR_NONE);
    } else if (t) {
        /* Changed meanwhile (or unwritable): every unsaved edit is gone; read the node again. */
        gr_logf(&c->b->log, GR_LOG_WARN, "controller", "writing the assignment of %s: %s", t->name,
                gr_store_rc_name(rc));
        t->assignment_writing = false;
        t->saved = t->edits;
        ctl_reassign_saved(c, t->name, t->edits, GR_KERR_UNKNOWN_SERVER_ERROR);
        for (int32_t i = 0; i < t->partition_count; i++)
            t->partitions[i].dropping_count = 0; /* never delete what the node still assigns */
        ctl_load_assignment(c, t->name);
    }
    free(op->data);
    free(op);
    ctl_kick(c);
}

/* The topic's replica lists as an assignment document (borrowing them). 0 or -ENOMEM. */
static int assignment_text(const gr_ctl_topic_t *t, gr_zk_json_writer_t *w, const char **text,
                           size_t *len)
{
    size_t n = (size_t)t->partition_count + 1;
    gr_zk_assignment_t a = {.id = t->id, .has_id = true, .partition_count = t->partition_count};
    a.replicas = calloc(n, sizeof *a.replicas);
    a.adding = calloc(n, sizeof *a.adding);
    a.removing = calloc(n, sizeof *a.removing);
    a.replica_counts = calloc(n, sizeof *a.replica_counts);
    a.adding_counts = calloc(n, sizeof *a.adding_counts);
    a.removing_counts = calloc(n, sizeof *a.removing_counts);
    int rc = -1;
    if (a.replicas && a.adding && a.removing && a.replica_counts && a.adding_counts &&
        a.removing_counts) {
        for (int32_t i = 0; i < t->partition_count; i++) {
            const gr_ctl_partition_t *p = &t->partitions[i];
            a.replicas[i] = p->replicas;
            a.replica_counts[i] = p->replica_count;
            a.adding[i] = p->adding;
            a.adding_counts[i] = p->adding_count;
            a.removing[i] = p->removing;
            a.removing_counts[i] = p->removing_count;
        }
        rc = gr_zk_doc_assignment(w, &a) || gr_zk_json_writer_finish(w, text, len) ? -1 : 0;
    }
    free(a.replicas);
    free(a.adding);
    free(a.removing);
    free(a.replica_counts);
    free(a.adding_counts);
    free(a.removing_counts);
    return rc;
}

static void save_assignment(gr_controller_t *c, gr_ctl_topic_t *t)
{
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    const char *text = NULL;
    size_t len = 0;
    ctl_op_t *op = ctl_op_new(c);
    uint64_t *covered = malloc(sizeof *covered);
    char path[GR_STORE_PATH_MAX + 1];
    snprintf(path, sizeof path, GR_ZK_BROKER_TOPICS_PATH "/%s", t->name);
    if (!op || !covered || assignment_text(t, &w, &text, &len) ||
        gr_store_set(c->b->store_session, path, text, len, t->assignment_version,
                     on_assignment_saved, op) != GR_STORE_OK) {
        free(covered);
        free(op);
        gr_zk_json_writer_fini(&w);
        ctl_kick_later(c);
        return;
    }
    gr_zk_json_writer_fini(&w);
    *covered = t->edits;
    op->data = covered;
    snprintf(op->name, sizeof op->name, "%s", t->name);
    t->assignment_writing = true;
    c->writes_pending++;
}

/* ---- the state writes of steps 2 and 3 ------------------------------------------------ */

typedef struct move_ticket {
    gr_controller_t *c;
    uint64_t gen;
    char topic[GR_TOPIC_NAME_LIMIT + 1];
    int32_t index;
    bool completing; /* step 3 (else the bump of step 2) */
} move_ticket_t;

static gr_ctl_partition_t *ticket_partition(move_ticket_t *k, gr_ctl_topic_t **t)
{
    if (!k->c->active || k->gen != k->c->gen)
        return NULL;
    *t = ctl_topic_find(k->c, k->topic);
    return *t && k->index < (*t)->partition_count ? &(*t)->partitions[k->index] : NULL;
}

/* Step 3 written: the replica set becomes the target, to be saved; the rest is dropped. */
static void finish_move(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index)
{
    gr_ctl_partition_t *p = &t->partitions[index];
    int32_t *dropping =
        realloc(p->dropping, sizeof(int32_t) * (size_t)(p->dropping_count + p->replica_count + 1));
    if (!dropping) {
        ctl_kick_later(c); /* step 3 is decided again */
        return;
    }
    p->dropping = dropping;
    int32_t kept = 0;
    for (int32_t i = 0; i < p->replica_count; i++) {
        if (!ctl_ids_hold(p->removing, p->removing_count, p->replicas[i]))
            p->replicas[kept++] = p->replicas[i];
        else if (!ctl_ids_hold(p->dropping, p->dropping_count, p->replicas[i]))
            p->dropping[p->dropping_count++] = p->replicas[i];
    }
    p->replica_count = kept;
    ctl_reassign_clear(p);
    char ids[128];
    format_ids(ids, sizeof ids, p->replicas, p->replica_count);
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s-%d: reassignment done, replicas %s", t->name,
            index, ids);
    p->changed = true;
    c->metadata_dirty = true;
    t->edits++;
}

static void on_move_written(void *opaque, int16_t err, const gr_ctl_partition_t *written)
{
    (void)written;
    move_ticket_t *k = opaque;
    gr_ctl_topic_t *t = NULL;
    gr_ctl_partition_t *p = ticket_partition(k, &t);
    if (p && err == GR_KERR_NONE && k->completing && !t->deleting)
        finish_move(k->c, t, k->index);
    else if (p && err != GR_KERR_NONE && !k->completing)
        p->reassign_bump = true; /* decided again on the state read back */
    free(k);
}

static int write_move(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index,
                      const gr_zk_partition_state_t *want, bool completing)
{
    move_ticket_t *k = calloc(1, sizeof *k);
    if (!k)
        return -1;
    *k = (move_ticket_t){c, c->gen, "", index, completing};
    snprintf(k->topic, sizeof k->topic, "%s", t->name);
    if (ctl_write_state(c, t, index, want, on_move_written, k) != 0) {
        free(k);
        return -1;
    }
    return 0;
}

/* The leader among members (all in sync): the current one if live and among them, else the
 * first live one; GR_NO_BROKER if none. */
static int32_t leader_among(gr_controller_t *c, const gr_ctl_partition_t *p, const int32_t *members,
                            int32_t count)
{
    if (ctl_ids_hold(members, count, p->state.leader) && is_live(c, p->state.leader))
        return p->state.leader;
    for (int32_t i = 0; i < count; i++)
        if (ctl_ids_hold(p->state.isr, p->state.isr_count, members[i]) && is_live(c, members[i]))
            return members[i];
    return GR_NO_BROKER;
}

/* Step 2: leader epoch + 1, the ISR cut to the replicas, so that they all hear of the set. */
static void bump(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index, gr_ctl_partition_t *p)
{
    int32_t *isr = malloc(sizeof(int32_t) * (size_t)(p->state.isr_count + 1));
    if (!isr)
        return ctl_kick_later(c);
    gr_zk_partition_state_t want = p->state;
    want.isr = isr;
    want.isr_count = 0;
    for (int32_t i = 0; i < p->state.isr_count; i++)
        if (ctl_ids_hold(p->replicas, p->replica_count, p->state.isr[i]))
            isr[want.isr_count++] = p->state.isr[i];
    want.leader = leader_among(c, p, isr, want.isr_count);
    if (want.leader == GR_NO_BROKER && want.isr_count == 0) {
        /* Only replicas left out were in sync: offline, their ISR kept (as Kafka keeps the last
         * member) so that their data is not deleted (stop_dropped) and unclean election decides. */
        memcpy(isr, p->state.isr, sizeof(int32_t) * (size_t)p->state.isr_count);
        want.isr_count = p->state.isr_count;
    }
    want.leader_epoch = p->state.leader_epoch + 1;
    want.controller_epoch = c->epoch;
    p->reassign_bump = false;
    if (write_move(c, t, index, &want, false))
        p->reassign_bump = true;
    free(isr);
}

/* Step 3, when every target replica is in the ISR and one of them can lead. */
static void maybe_complete(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index,
                           gr_ctl_partition_t *p)
{
    int32_t *target = malloc(sizeof(int32_t) * (size_t)(p->replica_count + 1));
    int32_t *isr = malloc(sizeof(int32_t) * (size_t)(p->state.isr_count + 1));
    if (!target || !isr)
        goto out;
    int32_t n =
        ctl_ids_minus(p->replicas, p->replica_count, p->removing, p->removing_count, target);
    for (int32_t i = 0; i < n; i++)
        if (!ctl_ids_hold(p->state.isr, p->state.isr_count, target[i]))
            goto out;
    gr_zk_partition_state_t want = p->state;
    want.leader = leader_among(c, p, target, n);
    if (want.leader == GR_NO_BROKER)
        goto out;
    want.isr = isr;
    want.isr_count = 0;
    for (int32_t i = 0; i < p->state.isr_count; i++)
        if (ctl_ids_hold(target, n, p->state.isr[i]))
            isr[want.isr_count++] = p->state.isr[i];
    want.leader_epoch = p->state.leader_epoch + 1;
    want.controller_epoch = c->epoch;
    (void)write_move(c, t, index, &want, true);
out:
    free(target);
    free(isr);
}

bool ctl_topic_saved(const gr_ctl_topic_t *t)
{
    return t->edits == t->saved && !t->assignment_writing;
}

void ctl_reassign_progress(gr_controller_t *c)
{
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        if (t->deleting)
            continue;
        if (!ctl_topic_saved(t)) {
            if (!t->assignment_writing)
                save_assignment(c, t);
            continue;
        }
        for (int32_t i = 0; i < t->partition_count; i++) {
            gr_ctl_partition_t *p = &t->partitions[i];
            if (!p->state_read || !p->has_state || p->writing)
                continue;
            if (p->reassign_bump)
                bump(c, t, i, p);
            else if (ctl_reassigning(p))
                maybe_complete(c, t, i, p);
        }
    }
}

/* ---- after the writes: deletions owed ------------------------------------------ */

/* Whether dropped replica id may hold the partition's only in-sync copy (then it stays). */
static bool holds_copy(const gr_ctl_partition_t *p, int32_t id)
{
    return p->has_state &&
           (p->state.leader == id || ctl_ids_hold(p->state.isr, p->state.isr_count, id));
}

/* StopReplica with deletion to p's dropped replicas that may go. Whether any was sent. */
static bool stop_partition_dropped(gr_controller_t *c, gr_ctl_topic_t *t, int32_t index,
                                   gr_ctl_partition_t *p)
{
    int32_t kept = 0;
    bool sent = false;
    for (int32_t k = 0; k < p->dropping_count; k++) {
        int32_t id = p->dropping[k];
        gr_ctl_broker_t *br = ctl_broker_find(c, id);
        if (!t->deleting && holds_copy(p, id)) {
            p->dropping[kept++] = id;
        } else if (br && !ctl_ids_hold(p->replicas, p->replica_count, id)) {
            if (ctl_send_stop_dropped(c, br, t->name, index) == 0) {
                sent = true;
            } else {
                p->dropping[kept++] = id;
                ctl_kick_later(c);
            }
        }
    }
    p->dropping_count = kept;
    return sent;
}

/* A topic being deleted drops everything at once: its node no longer matters. */
void ctl_reassign_stop_dropped(gr_controller_t *c)
{
    bool sent = false;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next) {
        if (!t->deleting && !ctl_topic_saved(t))
            continue;
        for (int32_t i = 0; i < t->partition_count; i++) {
            gr_ctl_partition_t *p = &t->partitions[i];
            if (p->dropping_count == 0 || p->writing || (!t->deleting && p->reassign_bump))
                continue;
            sent |= stop_partition_dropped(c, t, i, p);
        }
    }
    /* A replica takes metadata for a partition it hosts only from LeaderAndIsr: once stopped
     * (requests to a broker keep their order), it needs the state again. */
    if (sent) {
        c->metadata_dirty = true;
        ctl_kick(c);
    }
}

void ctl_reassign_stop_failed(gr_controller_t *c, const char *topic, int32_t index, int32_t broker)
{
    gr_ctl_topic_t *t = ctl_topic_find(c, topic);
    gr_ctl_partition_t *p = t && index < t->partition_count ? &t->partitions[index] : NULL;
    if (!p || !ctl_broker_find(c, broker) || ctl_ids_hold(p->replicas, p->replica_count, broker) ||
        ctl_ids_hold(p->dropping, p->dropping_count, broker))
        return;
    int32_t *dropping = realloc(p->dropping, sizeof(int32_t) * (size_t)(p->dropping_count + 1));
    if (!dropping)
        return;
    p->dropping = dropping;
    p->dropping[p->dropping_count++] = broker;
    ctl_kick_later(c);
}
