/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's partition plans (plan.h): Kafka's reassignment, election
 * and topics-to-move JSON files, parsed with the metadata store's JSON
 * reader (metadata/zk_json.h) and written with its compact writer, and the
 * --generate proposal placed by the controller's own placement
 * (controller/replica_assignment.h), so the tool and the broker agree.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin/plan.h"
#include "metadata/zk_json.h"

#define PLAN_FILE_MAX (64L * 1024 * 1024)

void gr_admin_plan_init(gr_admin_plan_t *p)
{
    memset(p, 0, sizeof *p);
}

void gr_admin_plan_free(gr_admin_plan_t *p)
{
    for (size_t i = 0; i < p->count; i++) {
        free(p->moves[i].topic);
        free(p->moves[i].replicas);
    }
    free(p->moves);
    for (size_t i = 0; i < p->topic_count; i++)
        free(p->topics[i]);
    free(p->topics);
    gr_admin_plan_init(p);
}

int gr_admin_plan_add(gr_admin_plan_t *p, const char *topic, int32_t topic_len, int32_t partition,
                      const int32_t *replicas, int32_t replica_count)
{
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        gr_admin_move_t *moves = realloc(p->moves, cap * sizeof *moves);
        if (!moves)
            return -ENOMEM;
        p->moves = moves;
        p->cap = cap;
    }
    gr_admin_move_t *m = &p->moves[p->count];
    memset(m, 0, sizeof *m);
    m->topic = strndup(topic, (size_t)topic_len);
    m->partition = partition;
    if (replicas && replica_count > 0) {
        m->replicas = malloc((size_t)replica_count * sizeof *m->replicas);
        if (m->replicas)
            memcpy(m->replicas, replicas, (size_t)replica_count * sizeof *m->replicas);
        m->replica_count = replica_count;
    }
    if (!m->topic || (replica_count > 0 && !m->replicas)) {
        free(m->topic);
        free(m->replicas);
        return -ENOMEM;
    }
    p->count++;
    return 0;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

long gr_admin_plan_find(const gr_admin_plan_t *p, const char *topic, int32_t partition)
{
    for (size_t i = 0; i < p->count; i++)
        if (p->moves[i].partition == partition && strcmp(p->moves[i].topic, topic) == 0)
            return (long)i;
    return -1;
}

static int check_version(const gr_zk_json_t *doc, char *err, size_t errlen)
{
    const gr_zk_json_t *v = gr_zk_json_find(doc, "version");
    if (!v || v->type != GR_ZK_JSON_INT || v->integer != 1)
        return fail(err, errlen, "\"version\" must be 1");
    return 0;
}

/* The replicas of entry i (an array of distinct broker ids) into out. */
static int parse_replicas(const gr_zk_json_t *entry, size_t i, int32_t **out, int32_t *count,
                          char *err, size_t errlen)
{
    const gr_zk_json_t *r = gr_zk_json_find(entry, "replicas");
    if (!r || r->type != GR_ZK_JSON_ARRAY || r->count == 0)
        return fail(err, errlen, "partitions[%zu]: \"replicas\" must be a non-empty array", i);
    int32_t *ids = malloc(r->count * sizeof *ids);
    if (!ids)
        return -ENOMEM;
    for (size_t j = 0; j < r->count; j++) {
        const gr_zk_json_t *id = r->items[j];
        if (id->type != GR_ZK_JSON_INT || id->integer < 0 || id->integer > INT32_MAX) {
            free(ids);
            return fail(err, errlen, "partitions[%zu]: replicas must be broker ids (>= 0)", i);
        }
        ids[j] = (int32_t)id->integer;
        for (size_t k = 0; k < j; k++)
            if (ids[k] == ids[j]) {
                free(ids);
                return fail(err, errlen, "partitions[%zu]: broker %d is listed twice in replicas",
                            i, (int)id->integer);
            }
    }
    const gr_zk_json_t *dirs = gr_zk_json_find(entry, "log_dirs");
    if (dirs) {
        bool ok = dirs->type == GR_ZK_JSON_ARRAY && dirs->count == r->count;
        for (size_t j = 0; ok && j < dirs->count; j++)
            ok = dirs->items[j]->type == GR_ZK_JSON_STRING &&
                 strcmp(dirs->items[j]->string, "any") == 0;
        if (!ok) {
            free(ids);
            return fail(err, errlen,
                        "partitions[%zu]: \"log_dirs\" must list \"any\" once per replica "
                        "(moves between log directories are not supported)",
                        i);
        }
    }
    *out = ids;
    *count = (int32_t)r->count;
    return 0;
}

static int parse_partitions(gr_admin_plan_kind_t kind, const gr_zk_json_t *doc, gr_admin_plan_t *p,
                            char *err, size_t errlen)
{
    const gr_zk_json_t *parts = gr_zk_json_find(doc, "partitions");
    if (!parts || parts->type != GR_ZK_JSON_ARRAY)
        return fail(err, errlen, "\"partitions\" must be an array");
    if (parts->count == 0)
        return fail(err, errlen, "\"partitions\" lists no partition");
    for (size_t i = 0; i < parts->count; i++) {
        const gr_zk_json_t *e = parts->items[i];
        const gr_zk_json_t *topic = gr_zk_json_find(e, "topic");
        const gr_zk_json_t *part = gr_zk_json_find(e, "partition");
        if (!topic || topic->type != GR_ZK_JSON_STRING || topic->string_len == 0 ||
            strlen(topic->string) != topic->string_len)
            return fail(err, errlen, "partitions[%zu]: \"topic\" must be a topic name", i);
        if (!part || part->type != GR_ZK_JSON_INT || part->integer < 0 || part->integer > INT32_MAX)
            return fail(err, errlen, "partitions[%zu]: \"partition\" must be an index (>= 0)", i);
        if (gr_admin_plan_find(p, topic->string, (int32_t)part->integer) >= 0)
            return fail(err, errlen, "partition %s-%d is listed twice", topic->string,
                        (int)part->integer);
        int32_t *replicas = NULL, count = 0;
        if (kind == GR_ADMIN_PLAN_REASSIGNMENT) {
            int rc = parse_replicas(e, i, &replicas, &count, err, errlen);
            if (rc)
                return rc;
        }
        int rc = gr_admin_plan_add(p, topic->string, (int32_t)topic->string_len,
                                   (int32_t)part->integer, replicas, count);
        free(replicas);
        if (rc)
            return rc;
    }
    return 0;
}

static int parse_topics(const gr_zk_json_t *doc, gr_admin_plan_t *p, char *err, size_t errlen)
{
    const gr_zk_json_t *topics = gr_zk_json_find(doc, "topics");
    if (!topics || topics->type != GR_ZK_JSON_ARRAY || topics->count == 0)
        return fail(err, errlen, "\"topics\" must be a non-empty array");
    p->topics = calloc(topics->count, sizeof *p->topics);
    if (!p->topics)
        return -ENOMEM;
    for (size_t i = 0; i < topics->count; i++) {
        const gr_zk_json_t *t = gr_zk_json_find(topics->items[i], "topic");
        if (!t || t->type != GR_ZK_JSON_STRING || t->string_len == 0 ||
            strlen(t->string) != t->string_len)
            return fail(err, errlen, "topics[%zu]: \"topic\" must be a topic name", i);
        for (size_t k = 0; k < p->topic_count; k++)
            if (strcmp(p->topics[k], t->string) == 0)
                return fail(err, errlen, "topic %s is listed twice", t->string);
        p->topics[p->topic_count] = strdup(t->string);
        if (!p->topics[p->topic_count])
            return -ENOMEM;
        p->topic_count++;
    }
    return 0;
}

int gr_admin_plan_parse(gr_admin_plan_kind_t kind, const char *text, size_t len, gr_admin_plan_t *p,
                        char *err, size_t errlen)
{
    gr_admin_plan_init(p);
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc == -EINVAL)
        rc = fail(err, errlen, "not a JSON document (or one with fractions or duplicate keys)");
    else if (rc == 0 && doc->type != GR_ZK_JSON_OBJECT)
        rc = fail(err, errlen, "not a JSON object");
    else if (rc == 0 && kind != GR_ADMIN_PLAN_ELECTION)
        rc = check_version(doc, err, errlen);
    if (rc == 0 && kind == GR_ADMIN_PLAN_TOPICS)
        rc = parse_topics(doc, p, err, errlen);
    else if (rc == 0)
        rc = parse_partitions(kind, doc, p, err, errlen);
    gr_zk_json_free(doc);
    if (rc)
        gr_admin_plan_free(p);
    return rc;
}

int gr_admin_plan_load(gr_admin_plan_kind_t kind, const char *path, gr_admin_plan_t *p, char *err,
                       size_t errlen)
{
    gr_admin_plan_init(p);
    FILE *f = fopen(path, "rb");
    if (!f) {
        int rc = -errno;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return rc;
    }
    char *text = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size < 0 || size > PLAN_FILE_MAX || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        snprintf(err, errlen, "cannot read %s (not a regular file, or too large)", path);
        return -EINVAL;
    }
    text = malloc((size_t)size + 1);
    size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!text)
        return -ENOMEM;
    int rc = got == (size_t)size ? gr_admin_plan_parse(kind, text, got, p, err, errlen) : -EIO;
    if (rc == -EIO)
        snprintf(err, errlen, "cannot read %s", path);
    free(text);
    return rc;
}

static int cmp_move(const void *x, const void *y)
{
    const gr_admin_move_t *a = x, *b = y;
    int c = strcmp(a->topic, b->topic);
    if (c)
        return c;
    return a->partition < b->partition ? -1 : a->partition > b->partition;
}

void gr_admin_plan_sort(gr_admin_plan_t *p)
{
    if (p->count > 1)
        qsort(p->moves, p->count, sizeof *p->moves, cmp_move);
}

char *gr_admin_plan_format(const gr_admin_plan_t *p)
{
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    gr_zk_json_object_begin(&w);
    gr_zk_json_key(&w, "version");
    gr_zk_json_int(&w, 1);
    gr_zk_json_key(&w, "partitions");
    gr_zk_json_array_begin(&w);
    for (size_t i = 0; i < p->count; i++) {
        const gr_admin_move_t *m = &p->moves[i];
        gr_zk_json_object_begin(&w);
        gr_zk_json_key(&w, "topic");
        gr_zk_json_string(&w, m->topic);
        gr_zk_json_key(&w, "partition");
        gr_zk_json_int(&w, m->partition);
        gr_zk_json_key(&w, "replicas");
        gr_zk_json_array_begin(&w);
        for (int32_t r = 0; r < m->replica_count; r++)
            gr_zk_json_int(&w, m->replicas[r]);
        gr_zk_json_array_end(&w);
        gr_zk_json_key(&w, "log_dirs");
        gr_zk_json_array_begin(&w);
        for (int32_t r = 0; r < m->replica_count; r++)
            gr_zk_json_string(&w, "any");
        gr_zk_json_array_end(&w);
        gr_zk_json_object_end(&w);
    }
    gr_zk_json_array_end(&w);
    gr_zk_json_object_end(&w);
    const char *text = NULL;
    size_t len = 0;
    char *out = gr_zk_json_writer_finish(&w, &text, &len) == 0 ? strndup(text, len) : NULL;
    gr_zk_json_writer_fini(&w);
    return out;
}

/* The highest partition index of topic in the sorted plan, from index i on. */
static int32_t last_partition(const gr_admin_plan_t *p, size_t i)
{
    int32_t last = p->moves[i].partition;
    for (size_t j = i; j < p->count && strcmp(p->moves[j].topic, p->moves[i].topic) == 0; j++)
        last = p->moves[j].partition > last ? p->moves[j].partition : last;
    return last;
}

int gr_admin_plan_propose(const gr_admin_plan_t *current, const gr_replica_broker_t *brokers,
                          size_t count, gr_rack_mode_t mode, gr_admin_plan_t *out, char *err,
                          size_t errlen)
{
    gr_admin_plan_init(out);
    /* One placement per topic and replication factor, reused by its partitions. */
    int32_t *layout = NULL, layout_factor = 0;
    const char *layout_topic = NULL;
    int rc = 0;
    for (size_t i = 0; i < current->count && rc == 0; i++) {
        const gr_admin_move_t *m = &current->moves[i];
        int32_t factor = m->replica_count;
        if (!layout_topic || strcmp(layout_topic, m->topic) != 0 || layout_factor != factor) {
            if (gr_replica_assign_check(brokers, count, factor, mode, err, errlen) !=
                GR_KERR_NONE) {
                rc = -EINVAL;
                break;
            }
            size_t first = i;
            while (first > 0 && strcmp(current->moves[first - 1].topic, m->topic) == 0)
                first--;
            int32_t partitions = last_partition(current, first) + 1;
            free(layout);
            layout = malloc((size_t)partitions * (size_t)factor * sizeof *layout);
            gr_replica_seed_t seed = {.start_index = 0, .replica_shift = 0, .first_partition = 0};
            rc = layout ? gr_replica_assign(brokers, count, partitions, factor, &seed, layout)
                        : -ENOMEM;
            if (rc == -EINVAL)
                snprintf(err, errlen, "cannot place %d replicas on %zu brokers", factor, count);
            layout_topic = m->topic;
            layout_factor = factor;
        }
        if (rc == 0)
            rc = gr_admin_plan_add(out, m->topic, (int32_t)strlen(m->topic), m->partition,
                                   layout + (size_t)m->partition * (size_t)factor, factor);
    }
    free(layout);
    if (rc)
        gr_admin_plan_free(out);
    return rc;
}
