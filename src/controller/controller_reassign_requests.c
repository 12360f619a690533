/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AlterPartitionReassignments' requests on the controller: each asked
 * partition is checked and started at once (ctl_reassign_start, see
 * controller_reassign.c), and answered when the topic's node holds its new
 * replica set (ctl_reassign_saved) or the save failed; the request is
 * answered when all its partitions are. Also the listing of moves.
 *
 * Runs on: loop thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "protocol/kerr.h"

typedef struct reassign_entry {
    char topic[GR_TOPIC_NAME_LIMIT + 1];
    int32_t index;
    uint64_t edit; /* the topic's edit whose save answers it */
    int16_t error;
    bool done;
} reassign_entry_t;

struct ctl_reassign {
    gr_controller_reassign_done_fn *done;
    void *opaque;
    reassign_entry_t *entries;
    int32_t count;
    ctl_reassign_t *next;
};

void ctl_reassign_saved(gr_controller_t *c, const char *topic, uint64_t upto, int16_t err)
{
    for (ctl_reassign_t *r = c->reassigns; r; r = r->next) {
        for (int32_t i = 0; i < r->count; i++) {
            reassign_entry_t *en = &r->entries[i];
            if (!en->done && en->edit <= upto && strcmp(en->topic, topic) == 0) {
                en->done = true;
                en->error = err;
            }
        }
    }
}

static void reassign_free(ctl_reassign_t *r)
{
    free(r->entries);
    free(r);
}

static void reassign_answer(ctl_reassign_t *r, int16_t forced)
{
    gr_election_result_t *results = calloc((size_t)r->count + 1, sizeof *results);
    for (int32_t i = 0; results && i < r->count; i++) {
        results[i].partition = (gr_ctl_partition_ref_t){r->entries[i].topic, r->entries[i].index};
        results[i].error = forced ? forced : r->entries[i].error;
    }
    r->done(r->opaque, results, results ? r->count : 0);
    free(results);
}

void ctl_reassign_report(gr_controller_t *c)
{
    for (ctl_reassign_t **pp = &c->reassigns; *pp;) {
        ctl_reassign_t *r = *pp;
        bool open = false;
        for (int32_t i = 0; i < r->count; i++) {
            reassign_entry_t *en = &r->entries[i];
            gr_ctl_topic_t *t = en->done ? NULL : ctl_topic_find(c, en->topic);
            if (en->done)
                continue;
            if (!t || t->deleting) {
                en->done = true;
                en->error = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
            } else if (en->edit <= t->saved && !t->assignment_writing) {
                en->done = true; /* a repeat of what was saved already */
            }
            open |= !en->done;
        }
        if (open) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        reassign_answer(r, GR_KERR_NONE);
        reassign_free(r);
    }
}

void ctl_reassign_drop(gr_controller_t *c)
{
    while (c->reassigns) {
        ctl_reassign_t *r = c->reassigns;
        c->reassigns = r->next;
        reassign_answer(r, GR_KERR_NOT_CONTROLLER);
        reassign_free(r);
    }
}

/* ---- requests ------------------------------------------------------------------------- */

/* Checks and starts one asked partition; en is done when refused. */
static void entry_start(gr_controller_t *c, reassign_entry_t *en, const gr_reassign_ask_t *ask)
{
    snprintf(en->topic, sizeof en->topic, "%s", ask->partition.topic);
    en->index = ask->partition.index;
    en->done = true;
    gr_ctl_topic_t *t = strlen(ask->partition.topic) <= GR_TOPIC_NAME_LIMIT
                            ? ctl_topic_find(c, ask->partition.topic)
                            : NULL;
    if (!t || t->deleting || en->index < 0 || en->index >= t->partition_count) {
        en->error = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    gr_ctl_partition_t *p = &t->partitions[en->index];
    const int32_t *target = ask->target;
    int32_t count = ask->count;
    int32_t *original = NULL;
    if (ask->cancel) {
        if (!ctl_reassigning(p)) {
            en->error = GR_KERR_NO_REASSIGNMENT_IN_PROGRESS;
            return;
        }
        original = malloc(sizeof(int32_t) * (size_t)(p->replica_count + 1));
        if (!original) {
            en->error = GR_KERR_UNKNOWN_SERVER_ERROR;
            return;
        }
        count = ctl_ids_minus(p->replicas, p->replica_count, p->adding, p->adding_count, original);
        target = original;
        gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s-%d: cancelling its reassignment",
                t->name, en->index);
    }
    en->error = ask->cancel ? GR_KERR_NONE : ctl_reassign_check(c, p, target, count);
    if (en->error == GR_KERR_NONE && ctl_reassign_start(c, t, en->index, target, count, &en->edit))
        en->error = GR_KERR_UNKNOWN_SERVER_ERROR;
    if (en->error == GR_KERR_NONE)
        ctl_zk_reassign_forget(c, t->name, en->index);
    en->done = en->error != GR_KERR_NONE;
    free(original);
}

int gr_controller_reassign(gr_controller_t *c, const gr_reassign_ask_t *asks, int32_t count,
                           gr_controller_reassign_done_fn *done, void *opaque)
{
    if (!c->active || !c->loaded)
        return GR_KERR_NOT_CONTROLLER;
    ctl_reassign_t *r = calloc(1, sizeof *r);
    if (!r || !(r->entries = calloc((size_t)count + 1, sizeof *r->entries))) {
        free(r);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    r->done = done;
    r->opaque = opaque;
    r->count = count;
    for (int32_t i = 0; i < count; i++)
        entry_start(c, &r->entries[i], &asks[i]);
    ctl_reassign_t **tail = &c->reassigns;
    while (*tail)
        tail = &(*tail)->next;
    *tail = r;
    ctl_kick(c);
    return GR_KERR_NONE;
}

int gr_controller_list_reassignments(gr_controller_t *c, gr_controller_reassigning_fn *fn,
                                     void *opaque)
{
    if (!c->active || !c->loaded)
        return GR_KERR_NOT_CONTROLLER;
    for (gr_ctl_topic_t *t = c->topics; t; t = t->next)
        for (int32_t i = 0; !t->deleting && i < t->partition_count; i++)
            if (ctl_reassigning(&t->partitions[i]))
                fn(opaque, t, i);
    return GR_KERR_NONE;
}
