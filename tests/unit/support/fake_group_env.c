/* SPDX-License-Identifier: Apache-2.0 */
/* The group tests' fake clock, timers and topics (fake_group_env.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "fake_group_env.h"

int64_t fake_group_now(void *opaque)
{
    return ((fake_group_clock_t *)opaque)->now;
}

void fake_group_arm(void *opaque, gr_group_timer_t *t, int64_t delay_ms)
{
    (void)delay_ms; /* the group sets t->deadline_ms itself */
    fake_group_clock_t *c = opaque;
    for (int i = 0; i < c->timer_count; i++)
        if (c->timers[i] == t)
            return;
    assert_true(c->timer_count < FAKE_GROUP_TIMERS_MAX);
    c->timers[c->timer_count++] = t;
}

static void remove_at(fake_group_clock_t *c, int i)
{
    c->timers[i] = c->timers[--c->timer_count];
}

void fake_group_cancel(void *opaque, gr_group_timer_t *t)
{
    fake_group_clock_t *c = opaque;
    for (int i = 0; i < c->timer_count; i++)
        if (c->timers[i] == t) {
            remove_at(c, i);
            return;
        }
}

static bool owned_by(const gr_group_timer_t *t, const char *member_id)
{
    if (!member_id || t->kind < GR_GROUP_TIMER_CONSUMER_SESSION)
        return true;
    if (t->kind == GR_GROUP_TIMER_SHARE_SESSION)
        return strcmp(((const gr_smember_t *)t->owner)->member_id, member_id) == 0;
    return strcmp(((const gr_cmember_t *)t->owner)->member_id, member_id) == 0;
}

gr_group_timer_t *fake_group_timer(const fake_group_clock_t *c, gr_group_timer_kind_t kind,
                                   const char *member_id)
{
    for (int i = 0; i < c->timer_count; i++)
        if (c->timers[i]->kind == kind && owned_by(c->timers[i], member_id))
            return c->timers[i];
    return NULL;
}

void fake_group_fire(fake_group_clock_t *c, gr_group_env_t *env, gr_group_timer_kind_t kind,
                     const char *member_id)
{
    gr_group_timer_t *t = fake_group_timer(c, kind, member_id);
    if (!t)
        fail_msg("no armed timer of kind %d for %s", (int)kind, member_id ? member_id : "-");
    fake_group_cancel(c, t);
    t->armed = false;
    gr_group_timer_fired(t, env);
}

void fake_group_advance(fake_group_clock_t *c, gr_group_env_t *env, int64_t ms)
{
    int64_t end = c->now + ms;
    for (;;) {
        int due = -1;
        for (int i = 0; i < c->timer_count; i++)
            if (c->timers[i]->deadline_ms <= end &&
                (due < 0 || c->timers[i]->deadline_ms < c->timers[due]->deadline_ms))
                due = i;
        if (due < 0)
            break;
        gr_group_timer_t *t = c->timers[due];
        remove_at(c, due);
        if (t->deadline_ms > c->now)
            c->now = t->deadline_ms;
        gr_group_timer_fired(t, env);
    }
    c->now = end;
}

gr_uuid_t fake_group_topic_id(uint8_t n)
{
    gr_uuid_t id = {{0}};
    id.b[sizeof id.b - 1] = n;
    return id;
}

void fake_group_add_topic(fake_group_topics_t *ts, const char *name, uint8_t id, int32_t partitions)
{
    assert_true(ts->count < FAKE_GROUP_TOPICS_MAX);
    ts->topics[ts->count++] = (fake_group_topic_t){name, fake_group_topic_id(id), partitions};
}

bool fake_group_remove_topic(fake_group_topics_t *ts, const char *name)
{
    for (int i = 0; i < ts->count; i++)
        if (strcmp(ts->topics[i].name, name) == 0) {
            ts->topics[i] = ts->topics[--ts->count];
            return true;
        }
    return false;
}

bool fake_group_topic_find(const fake_group_topics_t *ts, gr_str_t name,
                           gr_cgroup_topic_info_t *out)
{
    for (int i = 0; i < ts->count; i++)
        if (gr_str_eq_c(name, ts->topics[i].name)) {
            out->id = ts->topics[i].id;
            out->partition_count = ts->topics[i].partitions;
            return true;
        }
    return false;
}
