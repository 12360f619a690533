/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The subscribed topics' metadata a consumer group (cgroup.c) or a share
 * group (sgroup.c) keeps: the existing topics its members subscribe to,
 * each once, sorted by name, with the id and partition count the broker's
 * metadata gave. A change in it bumps the group epoch, so both kinds build
 * a fresh array and compare it with the one they hold.
 *
 * Runs on: loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "group/group_int.h"

void gr_group_topics_free(gr_group_topic_t *topics, int32_t count)
{
    for (int32_t i = 0; i < count; i++)
        free(topics[i].name);
    free(topics);
}

static bool topics_have(const gr_group_topic_t *t, int32_t n, const char *name)
{
    for (int32_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return true;
    return false;
}

int gr_group_topics_add(gr_group_topic_t *topics, int32_t *count, gr_group_env_t *env,
                        const char *name)
{
    gr_cgroup_topic_info_t info;
    if (topics_have(topics, *count, name) || !env->topic_find(env->opaque, gr_str(name), &info))
        return 0;
    gr_group_topic_t *t = &topics[*count];
    if (!(t->name = strdup(name)))
        return -ENOMEM;
    t->id = info.id;
    t->partition_count = info.partition_count;
    (*count)++;
    return 0;
}

static int topic_cmp(const void *a, const void *b)
{
    return strcmp(((const gr_group_topic_t *)a)->name, ((const gr_group_topic_t *)b)->name);
}

void gr_group_topics_sort(gr_group_topic_t *topics, int32_t count)
{
    qsort(topics, (size_t)count, sizeof(*topics), topic_cmp);
}

bool gr_group_topics_equal(const gr_group_topic_t *a, int32_t an, const gr_group_topic_t *b,
                           int32_t bn)
{
    if (an != bn)
        return false;
    for (int32_t i = 0; i < an; i++)
        if (strcmp(a[i].name, b[i].name) != 0 || memcmp(&a[i].id, &b[i].id, sizeof(a[i].id)) ||
            a[i].partition_count != b[i].partition_count)
            return false;
    return true;
}
