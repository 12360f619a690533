/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the group and consumer-group unit tests fake for gr_group_env_t: a
 * clock and the timers armed on it, and a topic table for consumer groups'
 * subscriptions. A test's fake embeds a fake_group_clock_t as its FIRST
 * member, so the env's opaque pointer (the test's fake) is also the clock
 * the callbacks below take.
 */
#ifndef GR_TEST_FAKE_GROUP_ENV_H
#define GR_TEST_FAKE_GROUP_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "group/cgroup.h"
#include "group/group.h"
#include "group/sgroup.h"

#define FAKE_GROUP_TIMERS_MAX 64
#define FAKE_GROUP_TOPICS_MAX 8

typedef struct fake_group_clock {
    int64_t now;
    gr_group_timer_t *timers[FAKE_GROUP_TIMERS_MAX]; /* armed, in arming order */
    int timer_count;
} fake_group_clock_t;

/* gr_group_env_t's now_ms, timer_arm and timer_cancel over the clock at opaque. */
int64_t fake_group_now(void *opaque);
void fake_group_arm(void *opaque, gr_group_timer_t *t, int64_t delay_ms);
void fake_group_cancel(void *opaque, gr_group_timer_t *t);

/*
 * The armed timer of kind, of the consumer- or share-group member
 * member_id (a timer of GR_GROUP_TIMER_CONSUMER_* kinds or
 * GR_GROUP_TIMER_SHARE_SESSION; NULL: whoever owns it), or NULL.
 */
gr_group_timer_t *fake_group_timer(const fake_group_clock_t *c, gr_group_timer_kind_t kind,
                                   const char *member_id);
/* Disarms and fires that timer; fails the test when there is none. */
void fake_group_fire(fake_group_clock_t *c, gr_group_env_t *env, gr_group_timer_kind_t kind,
                     const char *member_id);
/* Moves the clock on by ms, firing the timers due on the way in deadline order. */
void fake_group_advance(fake_group_clock_t *c, gr_group_env_t *env, int64_t ms);

typedef struct fake_group_topic {
    const char *name;
    gr_uuid_t id;
    int32_t partitions;
} fake_group_topic_t;

typedef struct fake_group_topics {
    fake_group_topic_t topics[FAKE_GROUP_TOPICS_MAX];
    int count;
} fake_group_topics_t;

/* A topic id whose last byte is n, the rest zero. */
gr_uuid_t fake_group_topic_id(uint8_t n);
/* Adds topic name (kept by pointer) with id fake_group_topic_id(id). */
void fake_group_add_topic(fake_group_topics_t *ts, const char *name, uint8_t id,
                          int32_t partitions);
/* Removes topic name; false if it was not there. */
bool fake_group_remove_topic(fake_group_topics_t *ts, const char *name);
/* gr_group_env_t's topic_find over ts. */
bool fake_group_topic_find(const fake_group_topics_t *ts, gr_str_t name,
                           gr_cgroup_topic_info_t *out);

#endif
