/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Leader elections asked for (ElectLeaders, and the preferred-leader
 * check of auto.leader.rebalance.enable). Each asked partition waits until
 * it is settled (read, no write in flight), then gets its outcome or a
 * state write with leader epoch + 1; a write that lost a race is decided
 * again once the state was read back. Progress runs inside reconcile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller_int.h"
#include "gen/elect_leaders.h"
#include "protocol/kerr.h"

enum entry_phase { ENTRY_WAITING, ENTRY_WRITING, ENTRY_DONE };

typedef struct election_entry {
    ctl_election_t *e;
    char topic[GR_TOPIC_NAME_LIMIT + 1];
    int32_t index;
    enum entry_phase phase;
    int16_t error;
} election_entry_t;

struct ctl_election {
    int8_t type;
    gr_controller_elect_done_fn *done;
    void *opaque;
    election_entry_t *entries;
    int32_t count;
    int32_t open; /* entries not done */
    ctl_election_t *next;
};

static bool is_live(gr_controller_t *c, int32_t id)
{
    const gr_ctl_broker_t *br = id >= 0 ? ctl_broker_find(c, id) : NULL;
    return br && !br->shutting_down;
}

static bool holds(const int32_t *ids, int32_t count, int32_t id)
{
    for (int32_t i = 0; i < count; i++)
        if (ids[i] == id)
            return true;
    return false;
}

static gr_ctl_partition_t *entry_partition(gr_controller_t *c, const election_entry_t *en)
{
    gr_ctl_topic_t *t = ctl_topic_find(c, en->topic);
    if (!t || t->deleting || en->index < 0 || en->index >= t->partition_count)
        return NULL;
    return &t->partitions[en->index];
}

/* Preferred: the first replica, if live and in sync. GR_NO_BROKER with *err set otherwise. */
static int32_t preferred_choice(gr_controller_t *c, const gr_ctl_partition_t *p, int16_t *err)
{
    int32_t preferred = p->replica_count > 0 ? p->replicas[0] : GR_NO_BROKER;
    if (p->has_state && p->state.leader == preferred) {
        *err = GR_KERR_ELECTION_NOT_NEEDED;
        return GR_NO_BROKER;
    }
    if (!p->has_state || !is_live(c, preferred) ||
        !holds(p->state.isr, p->state.isr_count, preferred)) {
        *err = GR_KERR_PREFERRED_LEADER_NOT_AVAILABLE;
        return GR_NO_BROKER;
    }
    return preferred;
}

/* Unclean: only without a live leader; an ISR member first, else any live replica. */
static int32_t unclean_choice(gr_controller_t *c, const gr_ctl_partition_t *p, bool *outside_isr,
                              int16_t *err)
{
    *outside_isr = false;
    if (p->has_state && p->state.leader >= 0 && ctl_broker_find(c, p->state.leader)) {
        *err = GR_KERR_ELECTION_NOT_NEEDED;
        return GR_NO_BROKER;
    }
    for (int32_t r = 0; p->has_state && r < p->replica_count; r++)
        if (is_live(c, p->replicas[r]) && holds(p->state.isr, p->state.isr_count, p->replicas[r]))
            return p->replicas[r];
    for (int32_t r = 0; p->has_state && r < p->replica_count; r++) {
        if (is_live(c, p->replicas[r])) {
            *outside_isr = true;
            return p->replicas[r];
        }
    }
    *err = GR_KERR_ELIGIBLE_LEADERS_NOT_AVAILABLE;
    return GR_NO_BROKER;
}

static void entry_finish(election_entry_t *en, int16_t err)
{
    en->phase = ENTRY_DONE;
    en->error = err;
    en->e->open--;
}

/* A write's link to its entry, checked first: a resigned controller freed the entries. */
typedef struct write_ticket {
    gr_controller_t *c;
    uint64_t gen;
    election_entry_t *en;
    bool unclean; /* a leader from outside the ISR: counted once written */
} write_ticket_t;

static void on_written(void *opaque, int16_t err, const gr_ctl_partition_t *p)
{
    write_ticket_t *ticket = opaque;
    election_entry_t *en = ticket->en;
    bool current = ticket->c->active && ticket->gen == ticket->c->gen;
    if (ticket->unclean)
        ctl_count_unclean(ticket->c, err, p);
    free(ticket);
    if (!current)
        return;
    if (err == GR_KERR_INVALID_UPDATE_VERSION)
        en->phase = ENTRY_WAITING; /* decided again on the state read back */
    else
        entry_finish(en, err);
}

void ctl_count_unclean(void *opaque, int16_t err, const gr_ctl_partition_t *p)
{
    (void)p;
    gr_controller_t *c = opaque;
    if (err == GR_KERR_NONE)
        c->unclean_elections++;
}

/* Decides en now that its partition is settled: an outcome, or a write started. */
static void entry_decide(gr_controller_t *c, election_entry_t *en, gr_ctl_partition_t *p)
{
    int16_t err = GR_KERR_NONE;
    bool outside_isr = false;
    int32_t leader = en->e->type == GR_ELECTION_TYPE_UNCLEAN
                         ? unclean_choice(c, p, &outside_isr, &err)
                         : preferred_choice(c, p, &err);
    if (leader == GR_NO_BROKER) {
        entry_finish(en, err);
        return;
    }
    gr_zk_partition_state_t want = p->state;
    want.leader = leader;
    want.leader_epoch = p->state.leader_epoch + 1;
    want.controller_epoch = c->epoch;
    if (outside_isr) {
        want.isr = &leader;
        want.isr_count = 1;
        gr_logf(&c->b->log, GR_LOG_WARN, "controller",
                "%s-%d: unclean leader election of broker %d, asked for", en->topic, en->index,
                leader);
    }
    gr_logf(&c->b->log, GR_LOG_INFO, "controller", "%s-%d: %s election of broker %d", en->topic,
            en->index, en->e->type == GR_ELECTION_TYPE_UNCLEAN ? "unclean" : "preferred", leader);
    write_ticket_t *ticket = malloc(sizeof *ticket);
    if (!ticket)
        return; /* still waiting: retried on the next reconcile */
    *ticket = (write_ticket_t){c, c->gen, en, outside_isr};
    en->phase = ENTRY_WRITING;
    gr_ctl_topic_t *t = ctl_topic_find(c, en->topic);
    if (ctl_write_state(c, t, en->index, &want, on_written, ticket) != 0) {
        free(ticket);
        en->phase = ENTRY_WAITING;
    }
}

static void election_free(ctl_election_t *e)
{
    free(e->entries);
    free(e);
}

/* Tells the asker, when every entry has its outcome. */
static void election_report(ctl_election_t *e, int16_t forced)
{
    gr_election_result_t *results = calloc((size_t)e->count + 1, sizeof *results);
    if (e->done && results) {
        for (int32_t i = 0; i < e->count; i++) {
            results[i].partition =
                (gr_ctl_partition_ref_t){e->entries[i].topic, e->entries[i].index};
            results[i].error = forced ? forced : e->entries[i].error;
        }
        e->done(e->opaque, results, e->count);
    } else if (e->done) {
        e->done(e->opaque, NULL, 0);
    }
    free(results);
}

void ctl_elections_progress(gr_controller_t *c)
{
    for (ctl_election_t *e = c->elections; e; e = e->next) {
        for (int32_t i = 0; i < e->count; i++) {
            election_entry_t *en = &e->entries[i];
            if (en->phase != ENTRY_WAITING)
                continue;
            gr_ctl_partition_t *p = entry_partition(c, en);
            if (!p)
                entry_finish(en, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
            else if (p->state_read && !p->writing)
                entry_decide(c, en, p);
        }
    }
}

void ctl_elections_report(gr_controller_t *c)
{
    for (ctl_election_t **pp = &c->elections; *pp;) {
        ctl_election_t *e = *pp;
        if (e->open > 0) {
            pp = &e->next;
            continue;
        }
        *pp = e->next;
        election_report(e, GR_KERR_NONE);
        election_free(e);
    }
}

void ctl_elections_drop(gr_controller_t *c)
{
    while (c->elections) {
        ctl_election_t *e = c->elections;
        c->elections = e->next;
        election_report(e, GR_KERR_NOT_CONTROLLER);
        election_free(e);
    }
}

static int32_t partition_total(const gr_controller_t *c)
{
    int32_t n = 0;
    for (const gr_ctl_topic_t *t = c->topics; t; t = t->next)
        n += t->deleting ? 0 : t->partition_count;
    return n;
}

static void entry_set(ctl_election_t *e, int32_t k, const char *topic, int32_t index)
{
    election_entry_t *en = &e->entries[k];
    en->e = e;
    snprintf(en->topic, sizeof en->topic, "%s", topic);
    en->index = index;
    en->phase = ENTRY_WAITING;
    if (strlen(topic) > GR_TOPIC_NAME_LIMIT)
        en->index = -1; /* cannot exist: answered UNKNOWN_TOPIC_OR_PARTITION */
}

int gr_controller_elect_leaders(gr_controller_t *c, int8_t type, const gr_ctl_partition_ref_t *asks,
                                int32_t count, gr_controller_elect_done_fn *done, void *opaque)
{
    if (!c->active || !c->loaded)
        return GR_KERR_NOT_CONTROLLER;
    int32_t n = asks ? count : partition_total(c);
    ctl_election_t *e = calloc(1, sizeof *e);
    if (!e || !(e->entries = calloc((size_t)n + 1, sizeof *e->entries))) {
        free(e);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    e->type = type;
    e->done = done;
    e->opaque = opaque;
    e->count = e->open = n;
    int32_t k = 0;
    if (asks) {
        for (; k < n; k++)
            entry_set(e, k, asks[k].topic, asks[k].index);
    } else {
        for (const gr_ctl_topic_t *t = c->topics; t; t = t->next)
            for (int32_t i = 0; !t->deleting && i < t->partition_count; i++)
                entry_set(e, k++, t->name, i);
    }
    ctl_election_t **tail = &c->elections;
    while (*tail)
        tail = &(*tail)->next;
    *tail = e;
    ctl_kick(c);
    return GR_KERR_NONE;
}
