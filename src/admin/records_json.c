/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka-delete-records.sh's --offset-json-file: Kafka's document
 * {"partitions":[{"topic":"foo","partition":1,"offset":1}],"version":1},
 * read with the metadata store's JSON reader (metadata/zk_json.h) and
 * checked in the order Kafka's tool checks it, so a refused file gets the
 * message Kafka prints ("Missing partitions field", "Expected `Integer`
 * value, received \"x\"", "Offset json file contains duplicate topic
 * partitions: foo-1"...).
 *
 * Kafka's tool prints its results, and its duplicates, in the iteration
 * order of a Java HashMap keyed by TopicPartition: gr_admin_records_java_order
 * reproduces that order from Java's String and TopicPartition hashes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin/records_json.h"
#include "metadata/zk_json.h"

#define RECORDS_JSON_VERSION 1 /* the only version Kafka's tool reads (and its default) */
#define JAVA_HASH_PRIME      31
#define JAVA_MAP_CAPACITY    16 /* a HashMap's first table */

static void java_order_in(gr_admin_records_target_t *targets, int n, uint32_t capacity);
static uint32_t java_capacity(int n);

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* Appends value as Jackson prints a node (compact JSON) to buf, truncating. */
static void node_text(const gr_zk_json_t *v, char *buf, size_t size)
{
    size_t at = strlen(buf);
    if (at + 1 >= size)
        return;
    char *p = buf + at;
    size_t room = size - at;
    switch (v->type) {
    case GR_ZK_JSON_NULL:
        snprintf(p, room, "null");
        return;
    case GR_ZK_JSON_BOOL:
        snprintf(p, room, "%s", v->boolean ? "true" : "false");
        return;
    case GR_ZK_JSON_INT:
        snprintf(p, room, "%lld", (long long)v->integer);
        return;
    case GR_ZK_JSON_STRING:
        snprintf(p, room, "\"");
        for (size_t i = 0; i < v->string_len && strlen(buf) + 8 < size; i++) {
            unsigned char c = (unsigned char)v->string[i];
            char *q = buf + strlen(buf);
            if (c == '"' || c == '\\')
                sprintf(q, "\\%c", c);
            else if (c < 0x20)
                sprintf(q, "\\u%04X", c);
            else
                sprintf(q, "%c", c);
        }
        snprintf(buf + strlen(buf), size - strlen(buf), "\"");
        return;
    case GR_ZK_JSON_ARRAY:
    case GR_ZK_JSON_OBJECT: {
        bool object = v->type == GR_ZK_JSON_OBJECT;
        snprintf(p, room, "%c", object ? '{' : '[');
        for (size_t i = 0; i < v->count; i++) {
            if (i)
                snprintf(buf + strlen(buf), size - strlen(buf), ",");
            if (object)
                snprintf(buf + strlen(buf), size - strlen(buf), "\"%s\":", v->keys[i]);
            node_text(v->items[i], buf, size);
        }
        snprintf(buf + strlen(buf), size - strlen(buf), "%c", object ? '}' : ']');
        return;
    }
    }
}

/* Kafka's message for a value of the wrong type: "Expected `<type>` value, received <node>". */
static int wrong_type(const char *type, const gr_zk_json_t *v, char *err, size_t errlen)
{
    char text[256] = "";
    node_text(v, text, sizeof text);
    return fail(err, errlen, "Expected %s, received %s", type, text);
}

/* A member an entry must have (Kafka: "No such field exists: `name`"). */
static const gr_zk_json_t *field(const gr_zk_json_t *entry, const char *name, char *err,
                                 size_t errlen)
{
    const gr_zk_json_t *v = gr_zk_json_find(entry, name);
    if (!v)
        fail(err, errlen, "No such field exists: `%s`", name);
    return v;
}

static bool is_int32(const gr_zk_json_t *v)
{
    return v->type == GR_ZK_JSON_INT && v->integer >= INT32_MIN && v->integer <= INT32_MAX;
}

static int parse_entry(const gr_zk_json_t *e, gr_arena_t *arena, gr_admin_records_target_t *out,
                       char *err, size_t errlen)
{
    if (e->type != GR_ZK_JSON_OBJECT)
        return wrong_type("JSON object", e, err, errlen);
    const gr_zk_json_t *topic = field(e, "topic", err, errlen);
    if (!topic)
        return -EINVAL;
    if (topic->type != GR_ZK_JSON_STRING)
        return wrong_type("`String` value", topic, err, errlen);
    if (strlen(topic->string) != topic->string_len)
        return fail(err, errlen, "A topic name cannot contain a NUL character");
    const gr_zk_json_t *partition = field(e, "partition", err, errlen);
    if (!partition)
        return -EINVAL;
    if (!is_int32(partition))
        return wrong_type("`Integer` value", partition, err, errlen);
    const gr_zk_json_t *offset = field(e, "offset", err, errlen);
    if (!offset)
        return -EINVAL;
    if (offset->type != GR_ZK_JSON_INT)
        return wrong_type("`Long` value", offset, err, errlen);
    out->topic = gr_arena_strndup(arena, topic->string, topic->string_len);
    out->partition = (int32_t)partition->integer;
    out->offset = offset->integer;
    return out->topic ? 0 : -ENOMEM;
}

static int check_version(const gr_zk_json_t *doc, char *err, size_t errlen)
{
    const gr_zk_json_t *version = gr_zk_json_find(doc, "version");
    if (!version)
        return 0;
    if (!is_int32(version))
        return wrong_type("`Integer` value", version, err, errlen);
    if (version->integer != RECORDS_JSON_VERSION)
        return fail(err, errlen, "Not supported version field value %lld",
                    (long long)version->integer);
    return 0;
}

static bool same_partition(const gr_admin_records_target_t *x, const gr_admin_records_target_t *y)
{
    return x->partition == y->partition && strcmp(x->topic, y->topic) == 0;
}

/* Kafka's refusal of a partition listed twice, naming each such partition once. */
static int check_duplicates(gr_admin_records_target_t *t, int n, gr_arena_t *arena, char *err,
                            size_t errlen)
{
    gr_admin_records_target_t *dups = gr_arena_alloc(arena, (size_t)n * sizeof *dups + 1);
    if (!dups)
        return -ENOMEM;
    int count = 0;
    for (int i = 0; i < n; i++) {
        bool later = false, counted = false;
        for (int j = i + 1; j < n && !later; j++)
            later = same_partition(&t[i], &t[j]);
        for (int k = 0; k < count && !counted; k++)
            counted = same_partition(&t[i], &dups[k]);
        if (later && !counted)
            dups[count++] = t[i];
    }
    if (count == 0)
        return 0;
    /* Kafka joins a HashSet of them, filled as its map of every partition iterates. */
    int distinct = n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (same_partition(&t[i], &t[j])) {
                distinct--;
                break;
            }
    java_order_in(dups, count, java_capacity(distinct));
    gr_admin_records_java_order(dups, count);
    int at = snprintf(err, errlen, "Offset json file contains duplicate topic partitions: ");
    for (int i = 0; i < count && at >= 0 && (size_t)at < errlen; i++)
        at += snprintf(err + at, errlen - (size_t)at, "%s%s-%d", i ? "," : "", dups[i].topic,
                       dups[i].partition);
    return -EINVAL;
}

static int parse_doc(const gr_zk_json_t *doc, gr_arena_t *arena, gr_admin_records_target_t **out,
                     int *count, char *err, size_t errlen)
{
    if (doc->type != GR_ZK_JSON_OBJECT)
        return wrong_type("JSON object", doc, err, errlen);
    int rc = check_version(doc, err, errlen);
    if (rc)
        return rc;
    const gr_zk_json_t *parts = gr_zk_json_find(doc, "partitions");
    if (!parts)
        return fail(err, errlen, "Missing partitions field");
    if (parts->type != GR_ZK_JSON_ARRAY)
        return wrong_type("JSON array", parts, err, errlen);
    gr_admin_records_target_t *t = gr_arena_alloc(arena, parts->count * sizeof *t + 1);
    if (!t)
        return -ENOMEM;
    for (size_t i = 0; i < parts->count; i++) {
        rc = parse_entry(parts->items[i], arena, &t[i], err, errlen);
        if (rc)
            return rc;
    }
    rc = check_duplicates(t, (int)parts->count, arena, err, errlen);
    if (rc)
        return rc;
    gr_admin_records_java_order(t, (int)parts->count);
    *out = t;
    *count = (int)parts->count;
    return 0;
}

int gr_admin_records_json_parse(const char *text, size_t len, gr_arena_t *arena,
                                gr_admin_records_target_t **out, int *count, char *err,
                                size_t errlen)
{
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc == -EINVAL)
        return fail(err, errlen, "The input string is not a valid JSON");
    if (rc) {
        snprintf(err, errlen, "%s", strerror(-rc)); /* out of memory: nothing to blame the file */
        return rc;
    }
    rc = parse_doc(doc, arena, out, count, err, errlen);
    gr_zk_json_free(doc);
    return rc;
}

/* Java's String.hashCode: over UTF-16 code units, so a UTF-8 sequence is decoded first. */
static uint32_t java_string_hash(const char *s)
{
    uint32_t h = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp = *p++;
        int more = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : cp >= 0xC0 ? 1 : 0;
        if (more)
            cp &= 0x3Fu >> more;
        for (; more > 0 && (*p & 0xC0) == 0x80; more--)
            cp = (cp << 6) | (*p++ & 0x3Fu);
        if (cp > 0xFFFF) { /* a surrogate pair */
            cp -= 0x10000;
            h = JAVA_HASH_PRIME * h + (0xD800 + (cp >> 10));
            h = JAVA_HASH_PRIME * h + (0xDC00 + (cp & 0x3FF));
        } else {
            h = JAVA_HASH_PRIME * h + cp;
        }
    }
    return h;
}

/* TopicPartition.hashCode, spread as HashMap spreads it, in a table of capacity buckets. */
static uint32_t java_bucket(const gr_admin_records_target_t *t, uint32_t capacity)
{
    uint32_t h =
        JAVA_HASH_PRIME * (JAVA_HASH_PRIME + (uint32_t)t->partition) + java_string_hash(t->topic);
    return (h ^ (h >> 16)) & (capacity - 1);
}

typedef struct java_slot {
    uint32_t bucket;
    int index; /* insertion order within the bucket */
    gr_admin_records_target_t target;
} java_slot_t;

static int cmp_slot(const void *x, const void *y)
{
    const java_slot_t *a = x, *b = y;
    if (a->bucket != b->bucket)
        return a->bucket < b->bucket ? -1 : 1;
    return a->index - b->index;
}

/* Sorts targets stably by their bucket in a HashMap table of capacity buckets. */
static void java_order_in(gr_admin_records_target_t *targets, int n, uint32_t capacity)
{
    java_slot_t *slots = n > 0 ? malloc((size_t)n * sizeof *slots) : NULL;
    if (!slots)
        return; /* (out of memory: only the printing order differs) */
    for (int i = 0; i < n; i++)
        slots[i] = (java_slot_t){java_bucket(&targets[i], capacity), i, targets[i]};
    qsort(slots, (size_t)n, sizeof *slots, cmp_slot);
    for (int i = 0; i < n; i++)
        targets[i] = slots[i].target;
    free(slots);
}

/* The table a HashMap has after n insertions: grown past 3/4 full. */
static uint32_t java_capacity(int n)
{
    uint32_t capacity = JAVA_MAP_CAPACITY;
    while ((uint32_t)n > capacity / 4 * 3)
        capacity *= 2;
    return capacity;
}

void gr_admin_records_java_order(gr_admin_records_target_t *targets, int n)
{
    java_order_in(targets, n, java_capacity(n));
}
