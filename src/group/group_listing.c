/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Groups as the admin APIs list them (group_listing.h): one place that
 * knows how a classic group, a KIP-848 consumer group and a KIP-932 share
 * group differ in name, state and protocol type, so the handlers treat
 * every kind alike.
 *
 * Runs on: loop thread.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "group/cgroup.h"
#include "group/group_listing.h"
#include "group/sgroup.h"

const char *gr_group_type_name(const gr_group_t *g)
{
    switch (g->type) {
    case GR_GROUP_TYPE_CONSUMER:
        return GR_GROUP_TYPE_NAME_CONSUMER;
    case GR_GROUP_TYPE_SHARE:
        return GR_GROUP_TYPE_NAME_SHARE;
    default:
        return GR_GROUP_TYPE_NAME_CLASSIC;
    }
}

/* name without the blanks Kafka's String.trim drops around it. */
static gr_str_t trimmed(gr_str_t name)
{
    if (!name.ptr || name.len <= 0)
        return (gr_str_t){name.ptr, 0};
    while (name.len > 0 && isspace((unsigned char)name.ptr[0])) {
        name.ptr++;
        name.len--;
    }
    while (name.len > 0 && isspace((unsigned char)name.ptr[name.len - 1]))
        name.len--;
    return name;
}

static bool same_name(gr_str_t a, const char *b)
{
    a = trimmed(a);
    return strlen(b) == (size_t)a.len && strncasecmp(a.ptr, b, (size_t)a.len) == 0;
}

int gr_group_type_parse(gr_str_t name)
{
    if (same_name(name, GR_GROUP_TYPE_NAME_CLASSIC))
        return GR_GROUP_TYPE_CLASSIC;
    if (same_name(name, GR_GROUP_TYPE_NAME_CONSUMER))
        return GR_GROUP_TYPE_CONSUMER;
    if (same_name(name, GR_GROUP_TYPE_NAME_SHARE))
        return GR_GROUP_TYPE_SHARE;
    return -1;
}

const char *gr_group_listed_state(const gr_group_t *g)
{
    if (g->type == GR_GROUP_TYPE_CONSUMER && g->consumer && g->state != GR_GROUP_DEAD)
        return gr_cgroup_state_name(g->consumer->state);
    if (g->type == GR_GROUP_TYPE_SHARE && g->share && g->state != GR_GROUP_DEAD)
        return gr_sgroup_state_name(g->share->state);
    return gr_group_state_name(g->state);
}

const char *gr_group_listed_protocol_type(const gr_group_t *g)
{
    if (g->type == GR_GROUP_TYPE_CONSUMER)
        return GR_GROUP_PROTOCOL_TYPE_CONSUMER;
    if (g->type == GR_GROUP_TYPE_SHARE)
        return GR_SGROUP_PROTOCOL_TYPE;
    return g->protocol_type ? g->protocol_type : "";
}

bool gr_group_listing_wanted(const gr_group_t *g, const gr_str_t *states, int32_t state_count,
                             const gr_str_t *types, int32_t type_count)
{
    bool state_ok = state_count <= 0, type_ok = type_count <= 0;
    const char *state = gr_group_listed_state(g);
    for (int32_t i = 0; i < state_count && !state_ok; i++)
        state_ok = same_name(states[i], state);
    for (int32_t i = 0; i < type_count && !type_ok; i++)
        type_ok = gr_group_type_parse(types[i]) == (int)g->type;
    return state_ok && type_ok;
}

bool gr_group_listing_subscribed(const gr_group_t *g, gr_str_t topic)
{
    if (g->type == GR_GROUP_TYPE_CONSUMER)
        return g->consumer && gr_cgroup_subscribed_to(g->consumer, topic);
    if (g->type == GR_GROUP_TYPE_SHARE)
        return g->share && gr_sgroup_subscribed_to(g->share, topic);
    return g->state != GR_GROUP_EMPTY && gr_group_subscribed_to(g, topic);
}
