/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Group members: allocation, their protocols, protocol selection, and the
 * topics a consumer group subscribes to (decoded from the members'
 * ConsumerProtocolSubscription metadata, as Kafka does for OffsetDelete).
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen/consumer_protocol.h"
#include "group/group_int.h"
#include "protocol/arena.h"
#include "protocol/reader.h"

char *gr_group_strdup(gr_str_t s)
{
    if (s.len < 0)
        return NULL;
    char *out = malloc((size_t)s.len + 1);
    if (!out)
        return NULL;
    if (s.len > 0)
        memcpy(out, s.ptr, (size_t)s.len);
    out[s.len] = '\0';
    return out;
}

bool gr_group_str_is(const char *c, gr_str_t s)
{
    if (!c)
        return s.len < 0;
    return s.len >= 0 && strlen(c) == (size_t)s.len && memcmp(c, s.ptr, (size_t)s.len) == 0;
}

static void protocols_free(gr_group_protocol_t *p, int32_t count)
{
    for (int32_t i = 0; i < count; i++) {
        free(p[i].name);
        free(p[i].metadata);
    }
    free(p);
}

int gr_member_set_protocols(gr_member_t *m, const gr_join_protocol_t *in, int32_t count)
{
    gr_group_protocol_t *p = calloc(count > 0 ? (size_t)count : 1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    for (int32_t i = 0; i < count; i++) {
        p[i].name = gr_group_strdup(in[i].name);
        int32_t len = in[i].metadata.len > 0 ? in[i].metadata.len : 0;
        p[i].metadata = malloc(len > 0 ? (size_t)len : 1);
        if (!p[i].name || !p[i].metadata) {
            protocols_free(p, i + 1);
            return -ENOMEM;
        }
        if (len > 0)
            memcpy(p[i].metadata, in[i].metadata.ptr, (size_t)len);
        p[i].metadata_len = len;
    }
    protocols_free(m->protocols, m->protocol_count);
    m->protocols = p;
    m->protocol_count = count;
    return 0;
}

bool gr_member_matches(const gr_member_t *m, const gr_join_protocol_t *in, int32_t count)
{
    if (m->protocol_count != count)
        return false;
    for (int32_t i = 0; i < count; i++) {
        const gr_group_protocol_t *p = &m->protocols[i];
        int32_t len = in[i].metadata.len > 0 ? in[i].metadata.len : 0;
        if (!gr_group_str_is(p->name, in[i].name) || p->metadata_len != len ||
            (len > 0 && memcmp(p->metadata, in[i].metadata.ptr, (size_t)len) != 0))
            return false;
    }
    return true;
}

bool gr_member_supports(const gr_member_t *m, const char *protocol)
{
    for (int32_t i = 0; i < m->protocol_count; i++)
        if (strcmp(m->protocols[i].name, protocol) == 0)
            return true;
    return false;
}

gr_bytes_t gr_member_metadata(const gr_member_t *m, const char *protocol)
{
    for (int32_t i = 0; protocol && i < m->protocol_count; i++)
        if (strcmp(m->protocols[i].name, protocol) == 0)
            return (gr_bytes_t){m->protocols[i].metadata, m->protocols[i].metadata_len};
    return (gr_bytes_t){NULL, GR_NULL_LEN};
}

int gr_member_set_assignment(gr_member_t *m, gr_bytes_t assignment)
{
    int32_t len = assignment.len > 0 ? assignment.len : 0;
    uint8_t *copy = malloc(len > 0 ? (size_t)len : 1);
    if (!copy)
        return -ENOMEM;
    if (len > 0)
        memcpy(copy, assignment.ptr, (size_t)len);
    free(m->assignment);
    m->assignment = copy;
    m->assignment_len = len;
    return 0;
}

gr_member_t *gr_member_new(gr_group_t *g, const char *member_id, gr_str_t instance_id,
                           gr_str_t client_id, gr_str_t client_host)
{
    gr_member_t *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->group = g;
    m->member_id = strdup(member_id);
    m->instance_id = gr_group_strdup(instance_id);
    m->client_id = gr_group_strdup(client_id.len >= 0 ? client_id : gr_str(""));
    m->client_host = gr_group_strdup(client_host.len >= 0 ? client_host : gr_str(""));
    m->session_timer.kind = GR_GROUP_TIMER_SESSION;
    m->session_timer.owner = m;
    if (!m->member_id || (instance_id.len >= 0 && !m->instance_id) || !m->client_id ||
        !m->client_host) {
        gr_member_free(m);
        return NULL;
    }
    return m;
}

void gr_member_free(gr_member_t *m)
{
    if (!m)
        return;
    protocols_free(m->protocols, m->protocol_count);
    free(m->member_id);
    free(m->instance_id);
    free(m->client_id);
    free(m->client_host);
    free(m->assignment);
    free(m);
}

gr_member_t *gr_group_find_member(const gr_group_t *g, gr_str_t member_id)
{
    for (gr_member_t *m = g->members; m; m = m->next)
        if (gr_group_str_is(m->member_id, member_id))
            return m;
    return NULL;
}

gr_member_t *gr_group_find_static(const gr_group_t *g, gr_str_t instance_id)
{
    if (instance_id.len < 0)
        return NULL;
    for (gr_member_t *m = g->members; m; m = m->next)
        if (m->instance_id && gr_group_str_is(m->instance_id, instance_id))
            return m;
    return NULL;
}

/* Is protocol offered by every member? */
static bool all_support(const gr_group_t *g, const char *protocol)
{
    for (gr_member_t *m = g->members; m; m = m->next)
        if (!gr_member_supports(m, protocol))
            return false;
    return true;
}

bool gr_group_supports_protocols(const gr_group_t *g, gr_str_t protocol_type,
                                 const gr_join_protocol_t *protocols, int32_t count)
{
    if (g->member_count == 0)
        return protocol_type.len > 0 && count > 0;
    if (!gr_group_str_is(g->protocol_type, protocol_type))
        return false;
    for (int32_t i = 0; i < count; i++) {
        bool all = true;
        for (gr_member_t *m = g->members; m && all; m = m->next) {
            bool has = false;
            for (int32_t j = 0; j < m->protocol_count && !has; j++)
                has = gr_group_str_is(m->protocols[j].name, protocols[i].name);
            all = has;
        }
        if (all)
            return true;
    }
    return false;
}

/*
 * Kafka's selection: among the protocols every member offers, each member
 * votes for the first one in its own preference order; most votes wins
 * (ties go to the one the leader prefers).
 */
const char *gr_group_select_protocol(const gr_group_t *g)
{
    const gr_member_t *ref = g->leader ? g->leader : g->members;
    if (!ref)
        return NULL;
    const char *best = NULL;
    int best_votes = -1;
    for (int32_t i = 0; i < ref->protocol_count; i++) {
        const char *candidate = ref->protocols[i].name;
        if (!all_support(g, candidate))
            continue;
        int votes = 0;
        for (gr_member_t *m = g->members; m; m = m->next) {
            for (int32_t j = 0; j < m->protocol_count; j++) {
                if (all_support(g, m->protocols[j].name)) {
                    votes += strcmp(m->protocols[j].name, candidate) == 0;
                    break;
                }
            }
        }
        if (votes > best_votes) {
            best = candidate;
            best_votes = votes;
        }
    }
    return best;
}

static void subscribed_free(gr_group_t *g)
{
    for (int32_t i = 0; i < g->subscribed_topic_count; i++)
        free(g->subscribed_topics[i]);
    free(g->subscribed_topics);
    g->subscribed_topics = NULL;
    g->subscribed_topic_count = 0;
}

static bool subscribed_has(const gr_group_t *g, gr_str_t topic)
{
    for (int32_t i = 0; i < g->subscribed_topic_count; i++)
        if (gr_group_str_is(g->subscribed_topics[i], topic))
            return true;
    return false;
}

static int subscribed_add(gr_group_t *g, gr_str_t topic)
{
    if (subscribed_has(g, topic))
        return 0;
    char **grown =
        realloc(g->subscribed_topics, sizeof(char *) * ((size_t)g->subscribed_topic_count + 1));
    if (!grown)
        return -ENOMEM;
    g->subscribed_topics = grown;
    if (!(grown[g->subscribed_topic_count] = gr_group_strdup(topic)))
        return -ENOMEM;
    g->subscribed_topic_count++;
    return 0;
}

/* Adds one member's subscribed topics; -EBADMSG if its metadata is not a subscription. */
static int add_member_topics(gr_group_t *g, gr_bytes_t meta, gr_arena_t *arena)
{
    gr_reader_t r;
    gr_reader_init(&r, meta.ptr, meta.len > 0 ? (size_t)meta.len : 0);
    int16_t version = gr_read_int16(&r);
    if (r.err || version < 0)
        return -EBADMSG;
    /* Newer versions only add fields at the end: read what we know. */
    if (version > GR_CONSUMER_PROTOCOL_SUBSCRIPTION_MAX_VERSION)
        version = GR_CONSUMER_PROTOCOL_SUBSCRIPTION_MAX_VERSION;
    gr_consumer_protocol_subscription_t sub;
    if (gr_consumer_protocol_subscription_decode(&r, version, arena, &sub) < 0)
        return -EBADMSG;
    for (int32_t i = 0; i < sub.topics_count; i++)
        if (subscribed_add(g, sub.topics[i]) < 0)
            return -ENOMEM;
    return 0;
}

void gr_group_compute_subscriptions(gr_group_t *g)
{
    subscribed_free(g);
    if (!g->protocol_type || strcmp(g->protocol_type, GR_GROUP_CONSUMER_PROTOCOL_TYPE) != 0 ||
        !g->protocol_name)
        return;
    gr_arena_t arena;
    gr_arena_init(&arena);
    int err = 0;
    for (gr_member_t *m = g->members; m && !err; m = m->next)
        err = add_member_topics(g, gr_member_metadata(m, g->protocol_name), &arena);
    gr_arena_fini(&arena);
    if (err < 0) {
        subscribed_free(g);
        return;
    }
    if (!g->subscribed_topics) /* known, and empty */
        g->subscribed_topics = calloc(1, sizeof(char *));
}

bool gr_group_subscribed_to(const gr_group_t *g, gr_str_t topic)
{
    if (!g->subscribed_topics)
        return true;
    return subscribed_has(g, topic);
}

void gr_group_subscriptions_free(gr_group_t *g)
{
    subscribed_free(g);
}
