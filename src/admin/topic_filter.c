/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's tools' topic-partition filters, as kafka-get-offsets.sh reads
 * them: a topic pattern is a regular expression matched against the whole
 * name, after the clean-up Kafka gives it (trimmed, ',' made '|', spaces
 * and surrounding quotes dropped). Patterns are POSIX extended regular
 * expressions; the common ones (".*", "orders|payments", "logs-[0-9]+")
 * mean what they mean to Java.
 *
 * A --topic-partitions rule is TOPIC(:PARTITIONS)?: PARTITIONS is a
 * number, "N-M" (N up to but not including M), "N-", "-M", or empty.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin/topic_filter.h"

#define PATTERN_MAX 1024

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Kafka's clean-up of a raw topic pattern into out. */
static void clean_pattern(const char *raw, size_t len, char *out, size_t size)
{
    while (len && (*raw == ' ' || *raw == '\t'))
        raw++, len--;
    while (len && (raw[len - 1] == ' ' || raw[len - 1] == '\t'))
        len--;
    while (len && (*raw == '"' || *raw == '\''))
        raw++, len--;
    while (len && (raw[len - 1] == '"' || raw[len - 1] == '\''))
        len--;
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < size; i++)
        if (raw[i] != ' ')
            out[n++] = raw[i] == ',' ? '|' : raw[i];
    out[n] = '\0';
}

/* Compiles the pattern (empty: every topic) to match whole names. 0, or -1 (err). */
static int compile(regex_t *re, const char *raw, size_t len, char *err, size_t errlen)
{
    char pattern[PATTERN_MAX], anchored[PATTERN_MAX + 8];
    clean_pattern(raw, len, pattern, sizeof pattern);
    snprintf(anchored, sizeof anchored, "^(%s)$", *pattern ? pattern : ".*");
    if (regcomp(re, anchored, REG_EXTENDED | REG_NOSUB) != 0)
        return fail(err, errlen, "%s is an invalid regex.", pattern);
    return 0;
}

/* A partition number of a rule (digits only, within int32). */
static bool parse_number(const char *s, size_t len, int32_t *out)
{
    long long n = 0;
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        n = n * 10 + (s[i] - '0');
        if (n > INT32_MAX)
            return false;
    }
    *out = (int32_t)n;
    return true;
}

/* The PARTITIONS part of a rule into [lower, upper). false: not Kafka's grammar. */
static bool parse_range(const char *s, size_t len, int32_t *lower, int32_t *upper)
{
    *lower = 0;
    *upper = INT32_MAX;
    if (len == 0)
        return true;
    const char *dash = memchr(s, '-', len);
    if (!dash) {
        if (!parse_number(s, len, lower))
            return false;
        *upper = *lower == INT32_MAX ? INT32_MAX : *lower + 1;
        return true;
    }
    size_t left = (size_t)(dash - s), right = len - left - 1;
    return (left == 0 || parse_number(s, left, lower)) &&
           (right == 0 || parse_number(dash + 1, right, upper));
}

static int add_rule(gr_topic_filter_t *f, const char *spec, size_t len, char *err, size_t errlen)
{
    if (f->count == GR_TOPIC_FILTER_RULES_MAX)
        return fail(err, errlen, "--topic-partitions takes at most %d rules",
                    GR_TOPIC_FILTER_RULES_MAX);
    const char *colon = memchr(spec, ':', len);
    size_t topic_len = colon ? (size_t)(colon - spec) : len;
    gr_topic_filter_rule_t *r = &f->rules[f->count];
    r->set = NULL;
    if (colon && !parse_range(colon + 1, len - topic_len - 1, &r->lower, &r->upper))
        return fail(err, errlen, "Invalid rule specification: %.*s", (int)len, spec);
    if (!colon)
        r->lower = 0, r->upper = INT32_MAX;
    if (compile(&r->topic, spec, topic_len, err, errlen))
        return -1;
    f->count++;
    return 0;
}

int gr_topic_filter_init_list(gr_topic_filter_t *f, const char *list, char *err, size_t errlen)
{
    f->count = 0;
    size_t len = strlen(list);
    while (len && list[len - 1] == ',') /* Java's split drops trailing empty rules */
        len--;
    for (size_t at = 0; at <= len;) {
        const char *comma = memchr(list + at, ',', len - at);
        size_t end = comma ? (size_t)(comma - list) : len;
        if (add_rule(f, list + at, end - at, err, errlen)) {
            gr_topic_filter_fini(f);
            return -1;
        }
        at = end + 1;
    }
    return 0;
}

int gr_topic_filter_init_topic(gr_topic_filter_t *f, const char *topic, const char *partitions,
                               char *err, size_t errlen)
{
    f->count = 0;
    for (const char *p = partitions; p && *p;) {
        char *end = NULL;
        errno = 0;
        long n = strtol(p, &end, 10);
        if (end == p || errno || n < INT32_MIN || n > INT32_MAX || (*end && *end != ','))
            return fail(err, errlen,
                        "--partitions expects a comma separated list of numeric partition ids, "
                        "but received: %s",
                        partitions);
        p = *end ? end + 1 : end;
    }
    gr_topic_filter_rule_t *r = &f->rules[0];
    if (compile(&r->topic, topic ? topic : "", topic ? strlen(topic) : 0, err, errlen))
        return -1;
    r->lower = 0;
    r->upper = INT32_MAX;
    r->set = partitions && *partitions ? partitions : NULL;
    f->count = 1;
    return 0;
}

void gr_topic_filter_fini(gr_topic_filter_t *f)
{
    for (int i = 0; i < f->count; i++)
        regfree(&f->rules[i].topic);
    f->count = 0;
}

static bool rule_topic(const gr_topic_filter_rule_t *r, const char *topic)
{
    return regexec(&r->topic, topic, 0, NULL, 0) == 0;
}

static bool in_set(const char *set, int32_t partition)
{
    for (const char *p = set; *p;) {
        char *end = NULL;
        if (strtol(p, &end, 10) == partition)
            return true;
        p = *end ? end + 1 : end;
    }
    return false;
}

bool gr_topic_filter_topic(const gr_topic_filter_t *f, const char *topic)
{
    for (int i = 0; i < f->count; i++)
        if (rule_topic(&f->rules[i], topic))
            return true;
    return false;
}

bool gr_topic_filter_partition(const gr_topic_filter_t *f, const char *topic, int32_t partition)
{
    for (int i = 0; i < f->count; i++) {
        const gr_topic_filter_rule_t *r = &f->rules[i];
        bool in =
            r->set ? in_set(r->set, partition) : partition >= r->lower && partition < r->upper;
        if (in && rule_topic(r, topic))
            return true;
    }
    return false;
}
