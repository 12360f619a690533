/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A consumer group's regular-expression subscriptions (KIP-848's
 * SubscribedTopicRegex, Kafka 4.x), in cgroup_regex.c.
 *
 * A member subscribes to its topic names and to the topics its regex
 * matches (both may be set; an empty regex matches nothing). The group
 * keeps one resolution per distinct regex of its members, Kafka's
 * "resolved regular expressions": the topics whose whole name matches
 * (topic_regex.h, RE2 syntax) and that the resolving member may DESCRIBE
 * when the broker has an authorizer. Internal topics are matched like any
 * other, as Kafka's coordinator does.
 *
 * When a resolution is redone (gr_cgroup_regex_refresh, at a heartbeat):
 *   - a regex no resolution exists for yet (a member brought it);
 *   - a topic was created or deleted since the last resolution (the env's
 *     topics generation moved): the next heartbeat of any member picks a
 *     new matching topic up, where Kafka waits for at least 10 s between
 *     two asynchronous resolutions; Gregor resolves synchronously, and a
 *     scan of the topic table per group and topic change is cheap;
 *   - the refresh interval passed (Kafka's
 *     group.consumer.regex.refresh.interval.ms, 10 minutes), so a changed
 *     ACL is seen.
 * A resolution whose topics changed bumps the group epoch. A regex no
 * member uses any more is dropped (its record gets a tombstone).
 *
 * Durability: each resolution is written as Kafka's
 * ConsumerGroupRegularExpression record (key type 16: the topics, the
 * generation as version, the time) with the group (cgroup_records.c); a
 * replayed one is kept, and resolved again at the first heartbeat since
 * the generation it carries belongs to the broker run that wrote it.
 *
 * Runs on: loop thread.
 */
#ifndef GR_GROUP_CGROUP_REGEX_H
#define GR_GROUP_CGROUP_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/kerr.h"
#include "protocol/types.h"

/* Kafka's group.consumer.regex.refresh.interval.ms default: 10 minutes. */
#define GR_CGROUP_REGEX_REFRESH_INTERVAL_MS (10 * 60 * 1000)
/* Room for INVALID_REGULAR_EXPRESSION's message (a long pattern is cut). */
#define GR_CGROUP_REGEX_MESSAGE_MAX 512

/* One distinct regex of the group's members and what it resolved to. */
typedef struct gr_cgroup_regex {
    char *pattern;
    char **topics; /* sorted, distinct */
    int32_t topic_count;
    bool resolved;        /* false: never resolved (new, or replayed topics only) */
    int64_t version;      /* topics generation resolved at */
    int64_t timestamp_ms; /* when */
} gr_cgroup_regex_t;

typedef struct gr_cgroup_regexes {
    gr_cgroup_regex_t *items;
    int32_t count;
    char **removed; /* patterns dropped since the last write: tombstones */
    int32_t removed_count;
    bool generation_known; /* false until the first resolution of this broker run */
    uint64_t generation;   /* the env's topics generation at the last resolution */
    int64_t refreshed_ms;  /* time of the last resolution */
} gr_cgroup_regexes_t;

/* May the heartbeating member see this topic (DESCRIBE)? NULL: no authorizer. */
typedef bool gr_cgroup_topic_allowed_fn(void *ctx, const char *topic);

typedef struct gr_cgroup gr_cgroup_t;
typedef struct gr_cmember gr_cmember_t;
typedef struct gr_group_env gr_group_env_t;

/* Frees every resolution and pending tombstone. */
void gr_cgroup_regexes_free(gr_cgroup_regexes_t *r);
/* The group was written: the tombstones are out. */
void gr_cgroup_regexes_stored(gr_cgroup_regexes_t *r);

/*
 * Kafka's throwIfRegularExpressionIsInvalid for a regex a member sends:
 * NONE (null, empty, or a regex the group has already), or
 * INVALID_REGULAR_EXPRESSION with message (cap bytes) saying why,
 * UNKNOWN_SERVER_ERROR on -ENOMEM.
 */
gr_kerr_t gr_cgroup_regex_check(const gr_cgroup_t *cg, gr_str_t regex, char *message, size_t cap);

/*
 * Sets m's regex from a heartbeat (null: unchanged). *bump is set when it
 * changed, as for a changed list of names. 0 or -ENOMEM (m unchanged).
 */
int gr_cmember_set_regex(gr_cmember_t *m, gr_str_t regex, bool *bump);

/* The resolution of pattern; NULL if the group has none. */
const gr_cgroup_regex_t *gr_cgroup_regex_find(const gr_cgroup_t *cg, const char *pattern);

/* Does m subscribe to topic, by name or through its regex's resolution? */
bool gr_cmember_subscribes(const gr_cgroup_t *cg, const gr_cmember_t *m, gr_str_t topic);
/* How many topic names m's subscription may hold (names + its regex's topics). */
int32_t gr_cmember_subscription_size(const gr_cgroup_t *cg, const gr_cmember_t *m);
/* Calls fn on each topic m subscribes to (names, then its regex's topics; repeats possible). */
void gr_cmember_foreach_topic(const gr_cgroup_t *cg, const gr_cmember_t *m,
                              void (*fn)(void *arg, const char *topic), void *arg);

/*
 * Drops the resolutions no member uses (their tombstones written with the
 * group). Called after members left.
 */
void gr_cgroup_regex_prune(gr_cgroup_t *cg);

/*
 * Brings the resolutions up to date (see above) for a heartbeat whose
 * member may see the topics allowed lets through (NULL: all). Returns true
 * when some resolution's topics changed (the caller bumps the group
 * epoch). On -ENOMEM the old resolutions stay.
 */
bool gr_cgroup_regex_refresh(gr_cgroup_t *cg, gr_group_env_t *env,
                             gr_cgroup_topic_allowed_fn *allowed, void *allowed_ctx);

/*
 * Replay (cgroup_records.c): the resolution of pattern is topics (count
 * names, copied); a tombstone (topics NULL, count -1) removes it. 0 or
 * -ENOMEM.
 */
int gr_cgroup_regex_replay(gr_cgroup_t *cg, gr_str_t pattern, const gr_str_t *topics, int32_t count,
                           int64_t version, int64_t timestamp_ms);

#endif
