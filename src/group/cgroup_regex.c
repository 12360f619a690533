/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Regular-expression subscriptions of a consumer group: checking a
 * member's regex, keeping one resolution per distinct regex, resolving
 * them against the broker's topics, and the subscription queries the rest
 * of the group asks (names ∪ regex matches). The design is in
 * cgroup_regex.h.
 *
 * Invariant after gr_cgroup_regex_refresh: every non-empty regex of a
 * member has exactly one entry in cg->regexes, and every entry is some
 * member's regex. Between a heartbeat's change and the next refresh (or a
 * fence's prune) an entry may be missing (the member then matches
 * nothing) or unused.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/cgroup_int.h"
#include "group/topic_regex.h"

/* Room kept for the pattern in an error message; a longer one is cut. */
#define REGEX_MESSAGE_PATTERN_MAX 200

static void regex_fini(gr_cgroup_regex_t *r)
{
    for (int32_t i = 0; i < r->topic_count; i++)
        free(r->topics[i]);
    free(r->topics);
    free(r->pattern);
}

static void removed_free(gr_cgroup_regexes_t *r)
{
    for (int32_t i = 0; i < r->removed_count; i++)
        free(r->removed[i]);
    free(r->removed);
    r->removed = NULL;
    r->removed_count = 0;
}

void gr_cgroup_regexes_stored(gr_cgroup_regexes_t *r)
{
    removed_free(r);
}

void gr_cgroup_regexes_free(gr_cgroup_regexes_t *r)
{
    for (int32_t i = 0; i < r->count; i++)
        regex_fini(&r->items[i]);
    free(r->items);
    removed_free(r);
    memset(r, 0, sizeof(*r));
}

static bool nonempty(const char *s)
{
    return s && *s;
}

static gr_cgroup_regex_t *regex_find(const gr_cgroup_regexes_t *r, const char *pattern, size_t len)
{
    for (int32_t i = 0; i < r->count; i++)
        if (strlen(r->items[i].pattern) == len && memcmp(r->items[i].pattern, pattern, len) == 0)
            return &r->items[i];
    return NULL;
}

const gr_cgroup_regex_t *gr_cgroup_regex_find(const gr_cgroup_t *cg, const char *pattern)
{
    return nonempty(pattern) ? regex_find(&cg->regexes, pattern, strlen(pattern)) : NULL;
}

gr_kerr_t gr_cgroup_regex_check(const gr_cgroup_t *cg, gr_str_t regex, char *message, size_t cap)
{
    /* A regex the group resolves already was checked when it came. */
    if (regex.len <= 0 || regex_find(&cg->regexes, regex.ptr, (size_t)regex.len))
        return GR_KERR_NONE;
    char why[GR_TOPIC_REGEX_ERROR_MAX];
    gr_topic_regex_t *re;
    int rc = gr_topic_regex_compile(regex.ptr, (size_t)regex.len, &re, why, sizeof why);
    if (rc == -ENOMEM)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    if (rc == 0) {
        gr_topic_regex_free(re);
        return GR_KERR_NONE;
    }
    /* Kafka's message, with RE2's reason where Kafka has RE2/J's description. */
    int shown = regex.len > REGEX_MESSAGE_PATTERN_MAX ? REGEX_MESSAGE_PATTERN_MAX : regex.len;
    snprintf(message, cap, "SubscribedTopicRegex `%.*s%s` is not a valid regular expression: %s.",
             shown, regex.ptr, shown < regex.len ? "..." : "", why);
    return GR_KERR_INVALID_REGULAR_EXPRESSION;
}

int gr_cmember_set_regex(gr_cmember_t *m, gr_str_t regex, bool *bump)
{
    if (regex.len < 0 || gr_group_str_is(m->subscribed_regex, regex))
        return 0;
    char *copy = gr_cgroup_strdup(regex);
    if (!copy)
        return -ENOMEM;
    free(m->subscribed_regex);
    m->subscribed_regex = copy;
    *bump = true;
    return 0;
}

/* --- subscriptions --------------------------------------------------------------- */

static const gr_cgroup_regex_t *member_regex(const gr_cgroup_t *cg, const gr_cmember_t *m)
{
    return gr_cgroup_regex_find(cg, m->subscribed_regex);
}

/* strcmp of c against s. */
static int str_cmp(const char *c, gr_str_t s)
{
    size_t n = s.len > 0 ? (size_t)s.len : 0, cn = strlen(c);
    int r = memcmp(c, s.ptr, cn < n ? cn : n);
    return r ? r : (cn > n) - (cn < n);
}

static bool topics_contain(char *const *topics, int32_t count, gr_str_t topic)
{
    int32_t lo = 0, hi = count;
    while (lo < hi) { /* sorted */
        int32_t mid = lo + (hi - lo) / 2;
        int c = str_cmp(topics[mid], topic);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

bool gr_cmember_subscribes(const gr_cgroup_t *cg, const gr_cmember_t *m, gr_str_t topic)
{
    for (int32_t i = 0; i < m->subscribed_count; i++)
        if (gr_str_eq_c(topic, m->subscribed_topics[i]))
            return true;
    const gr_cgroup_regex_t *r = member_regex(cg, m);
    return r && topics_contain(r->topics, r->topic_count, topic);
}

int32_t gr_cmember_subscription_size(const gr_cgroup_t *cg, const gr_cmember_t *m)
{
    const gr_cgroup_regex_t *r = member_regex(cg, m);
    return m->subscribed_count + (r ? r->topic_count : 0);
}

void gr_cmember_foreach_topic(const gr_cgroup_t *cg, const gr_cmember_t *m,
                              void (*fn)(void *arg, const char *topic), void *arg)
{
    for (int32_t i = 0; i < m->subscribed_count; i++)
        fn(arg, m->subscribed_topics[i]);
    const gr_cgroup_regex_t *r = member_regex(cg, m);
    for (int32_t i = 0; r && i < r->topic_count; i++)
        fn(arg, r->topics[i]);
}

/* --- the group's set of resolutions ------------------------------------------------ */

static bool used(const gr_cgroup_t *cg, const char *pattern)
{
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        if (m->subscribed_regex && strcmp(m->subscribed_regex, pattern) == 0)
            return true;
    return false;
}

/* Remembers pattern for its tombstone (-ENOMEM: its record stays behind, harmless). */
static void note_removed(gr_cgroup_t *cg, char *pattern)
{
    gr_cgroup_regexes_t *r = &cg->regexes;
    char **grown = realloc(r->removed, sizeof(*grown) * (size_t)(r->removed_count + 1));
    if (!grown) {
        free(pattern);
        return;
    }
    r->removed = grown;
    r->removed[r->removed_count++] = pattern;
}

void gr_cgroup_regex_prune(gr_cgroup_t *cg)
{
    gr_cgroup_regexes_t *r = &cg->regexes;
    int32_t kept = 0;
    for (int32_t i = 0; i < r->count; i++) {
        gr_cgroup_regex_t *e = &r->items[i];
        if (used(cg, e->pattern)) {
            r->items[kept++] = *e;
            continue;
        }
        note_removed(cg, e->pattern);
        e->pattern = NULL;
        regex_fini(e);
        gr_cgroup_touch(cg);
    }
    r->count = kept;
}

/* An unresolved entry for pattern (a copy). 0 or -ENOMEM. */
static int regex_add(gr_cgroup_regexes_t *r, gr_str_t pattern)
{
    gr_cgroup_regex_t *grown = realloc(r->items, sizeof(*grown) * (size_t)(r->count + 1));
    if (!grown)
        return -ENOMEM;
    r->items = grown;
    gr_cgroup_regex_t *e = &r->items[r->count];
    memset(e, 0, sizeof(*e));
    if (!(e->pattern = gr_cgroup_strdup(pattern)))
        return -ENOMEM;
    r->count++;
    return 0;
}

/* Adds the members' regexes the group has no entry for. 0 or -ENOMEM. */
static int regex_adopt(gr_cgroup_t *cg)
{
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        if (nonempty(m->subscribed_regex) && !gr_cgroup_regex_find(cg, m->subscribed_regex) &&
            regex_add(&cg->regexes, gr_str(m->subscribed_regex)) < 0)
            return -ENOMEM;
    return 0;
}

/* --- resolving ----------------------------------------------------------------------- */

/* The topics one compiled regex matched, growing as the topic table is walked. */
typedef struct match_set {
    gr_topic_regex_t *re; /* NULL: the pattern no longer compiles; matches nothing */
    char **topics;
    int32_t count, cap;
} match_set_t;

typedef struct resolve {
    match_set_t *sets;
    int32_t count;
    gr_cgroup_topic_allowed_fn *allowed;
    void *allowed_ctx;
    int error; /* -ENOMEM seen */
} resolve_t;

static void match_add(resolve_t *rs, match_set_t *s, const char *name)
{
    if (s->count == s->cap) {
        int32_t cap = s->cap ? s->cap * 2 : 8;
        char **grown = realloc(s->topics, sizeof(*grown) * (size_t)cap);
        if (!grown) {
            rs->error = -ENOMEM;
            return;
        }
        s->topics = grown;
        s->cap = cap;
    }
    if (!(s->topics[s->count] = strdup(name))) {
        rs->error = -ENOMEM;
        return;
    }
    s->count++;
}

static void resolve_topic(void *arg, const char *name)
{
    resolve_t *rs = arg;
    bool checked = false, allowed = true;
    for (int32_t i = 0; i < rs->count && !rs->error; i++) {
        match_set_t *s = &rs->sets[i];
        /* A match that could not be decided (match limit, bad UTF-8) is none. */
        if (!s->re || gr_topic_regex_match(s->re, name, strlen(name)) != 1)
            continue;
        if (!checked) { /* DESCRIBE once per topic, as Kafka's filter */
            allowed = !rs->allowed || rs->allowed(rs->allowed_ctx, name);
            checked = true;
        }
        if (allowed)
            match_add(rs, s, name);
    }
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool same_topics(const gr_cgroup_regex_t *e, const match_set_t *s)
{
    if (e->topic_count != s->count)
        return false;
    for (int32_t i = 0; i < s->count; i++)
        if (strcmp(e->topics[i], s->topics[i]) != 0)
            return false;
    return true;
}

static void sets_free(match_set_t *sets, int32_t count)
{
    for (int32_t i = 0; sets && i < count; i++) {
        gr_topic_regex_free(sets[i].re);
        for (int32_t k = 0; k < sets[i].count; k++)
            free(sets[i].topics[k]);
        free(sets[i].topics);
    }
    free(sets);
}

/* Moves each set's topics into its entry; true if some entry's topics changed. */
static bool resolve_apply(gr_cgroup_t *cg, match_set_t *sets, int64_t version, int64_t now)
{
    bool changed = false;
    for (int32_t i = 0; i < cg->regexes.count; i++) {
        gr_cgroup_regex_t *e = &cg->regexes.items[i];
        match_set_t *s = &sets[i];
        qsort(s->topics, (size_t)s->count, sizeof(*s->topics), name_cmp);
        e->version = version;
        e->timestamp_ms = now;
        if (e->resolved && same_topics(e, s))
            continue;
        /* A first resolution changes the subscription even when it matches what was replayed. */
        changed |= !e->resolved || !same_topics(e, s);
        for (int32_t k = 0; k < e->topic_count; k++)
            free(e->topics[k]);
        free(e->topics);
        e->topics = s->topics;
        e->topic_count = s->count;
        e->resolved = true;
        s->topics = NULL;
        s->count = s->cap = 0;
        gr_cgroup_touch(cg);
    }
    return changed;
}

/* Resolves every entry against the broker's topics. 1 changed, 0 not, -ENOMEM. */
static int resolve_all(gr_cgroup_t *cg, gr_group_env_t *env, gr_cgroup_topic_allowed_fn *allowed,
                       void *allowed_ctx, uint64_t generation)
{
    resolve_t rs = {.sets = calloc((size_t)cg->regexes.count + 1, sizeof(match_set_t)),
                    .count = cg->regexes.count,
                    .allowed = allowed,
                    .allowed_ctx = allowed_ctx};
    if (!rs.sets)
        return -ENOMEM;
    for (int32_t i = 0; i < rs.count && !rs.error; i++) {
        const char *p = cg->regexes.items[i].pattern;
        int rc = gr_topic_regex_compile(p, strlen(p), &rs.sets[i].re, NULL, 0);
        if (rc == -ENOMEM)
            rs.error = rc;
        /* -EINVAL (a replayed pattern this build refuses): it matches nothing. */
    }
    if (!rs.error && env->topic_foreach)
        env->topic_foreach(env->opaque, resolve_topic, &rs);
    int rc = rs.error;
    if (!rc)
        rc = resolve_apply(cg, rs.sets, (int64_t)generation, env->now_ms(env->opaque));
    sets_free(rs.sets, rs.count);
    return rc;
}

static bool needs_resolution(const gr_cgroup_t *cg, gr_group_env_t *env, uint64_t generation)
{
    const gr_cgroup_regexes_t *r = &cg->regexes;
    int64_t interval = env->consumer_limits.regex_refresh_interval_ms > 0
                           ? env->consumer_limits.regex_refresh_interval_ms
                           : GR_CGROUP_REGEX_REFRESH_INTERVAL_MS;
    if (!r->generation_known || r->generation != generation ||
        env->now_ms(env->opaque) - r->refreshed_ms >= interval)
        return true;
    for (int32_t i = 0; i < r->count; i++)
        if (!r->items[i].resolved)
            return true;
    return false;
}

bool gr_cgroup_regex_refresh(gr_cgroup_t *cg, gr_group_env_t *env,
                             gr_cgroup_topic_allowed_fn *allowed, void *allowed_ctx)
{
    gr_cgroup_regex_prune(cg);
    if (regex_adopt(cg) < 0 || cg->regexes.count == 0)
        return false;
    uint64_t generation = env->topics_generation ? env->topics_generation(env->opaque) : 0;
    if (!needs_resolution(cg, env, generation))
        return false;
    int rc = resolve_all(cg, env, allowed, allowed_ctx, generation);
    if (rc < 0)
        return false;
    cg->regexes.generation = generation;
    cg->regexes.generation_known = true;
    cg->regexes.refreshed_ms = env->now_ms(env->opaque);
    return rc > 0;
}

/* --- replay ---------------------------------------------------------------------- */

int gr_cgroup_regex_replay(gr_cgroup_t *cg, gr_str_t pattern, const gr_str_t *topics, int32_t count,
                           int64_t version, int64_t timestamp_ms)
{
    gr_cgroup_regexes_t *r = &cg->regexes;
    if (pattern.len <= 0)
        return 0;
    gr_cgroup_regex_t *e = regex_find(r, pattern.ptr, (size_t)pattern.len);
    if (count < 0) { /* tombstone */
        if (e) {
            regex_fini(e);
            *e = r->items[--r->count];
        }
        return 0;
    }
    char **copy = calloc((size_t)count + 1, sizeof(*copy));
    int32_t n = 0;
    while (copy && n < count && (copy[n] = gr_cgroup_strdup(topics[n])))
        n++;
    if (!copy || n < count) {
        for (int32_t i = 0; copy && i < n; i++)
            free(copy[i]);
        free(copy);
        return -ENOMEM;
    }
    qsort(copy, (size_t)n, sizeof(*copy), name_cmp);
    if (!e) {
        if (regex_add(r, pattern) < 0) {
            for (int32_t i = 0; i < n; i++)
                free(copy[i]);
            free(copy);
            return -ENOMEM;
        }
        e = &r->items[r->count - 1];
    }
    for (int32_t i = 0; i < e->topic_count; i++)
        free(e->topics[i]);
    free(e->topics);
    e->topics = copy;
    e->topic_count = n;
    e->version = version;
    e->timestamp_ms = timestamp_ms;
    /* Resolved, by the broker run that wrote it; this run's generation is unknown,
     * so the first heartbeat resolves it again (no epoch bump if nothing moved). */
    e->resolved = true;
    r->generation_known = false;
    return 0;
}
