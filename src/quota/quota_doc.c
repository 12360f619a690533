/* SPDX-License-Identifier: Apache-2.0 */
/* Quota znode documents: see quota_doc.h. Runs on: any thread. */
#include "quota/quota_doc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metadata/zk_json.h"

#define QUOTA_JSON_VERSION 1
#define DOUBLE_DIGITS_MAX  17 /* significant digits that always round-trip a double */

static const gr_zk_json_t *config_of(const gr_zk_json_t *doc)
{
    const gr_zk_json_t *config = doc ? gr_zk_json_find(doc, "config") : NULL;
    return config && config->type == GR_ZK_JSON_OBJECT ? config : NULL;
}

int gr_quota_doc_parse(const char *text, size_t len, gr_quota_values_t *out)
{
    memset(out, 0, sizeof *out);
    if (!text || len == 0)
        return 0;
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(text, len, &doc);
    if (rc)
        return rc;
    const gr_zk_json_t *config = config_of(doc);
    for (size_t i = 0; config && i < config->count; i++) {
        gr_quota_type_t t;
        const gr_zk_json_t *v = config->items[i];
        if (gr_quota_type_parse(config->keys[i], strlen(config->keys[i]), &t) ||
            v->type != GR_ZK_JSON_STRING)
            continue;
        char *end = NULL;
        double value = strtod(v->string, &end);
        if (end == v->string || *end || !isfinite(value))
            continue;
        out->has[t] = true;
        out->value[t] = value;
    }
    gr_zk_json_free(doc);
    return config ? 0 : -EINVAL;
}

void gr_quota_value_format(gr_quota_type_t type, double value, char *out, size_t out_len)
{
    if (type != GR_QUOTA_REQUEST)
        snprintf(out, out_len, "%lld", (long long)llround(value));
    else if (value == floor(value))
        snprintf(out, out_len, "%.1f", value); /* Java's Double.toString of a whole number */
    else
        for (int digits = 1; digits <= DOUBLE_DIGITS_MAX; digits++) {
            /* The shortest text that reads back as the same double, as Java prints it. */
            snprintf(out, out_len, "%.*g", digits, value);
            if (strtod(out, NULL) == value)
                break;
        }
}

int gr_quota_doc_build(const char *old, size_t old_len, const gr_quota_values_t *set,
                       const bool remove[GR_QUOTA_TYPE_COUNT], char **out, size_t *out_len)
{
    gr_zk_json_t *doc = NULL;
    if (old && old_len && gr_zk_json_parse(old, old_len, &doc))
        doc = NULL; /* a malformed znode is replaced */
    const gr_zk_json_t *config = config_of(doc);
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    gr_zk_json_object_begin(&w);
    gr_zk_json_key(&w, "version");
    gr_zk_json_int(&w, QUOTA_JSON_VERSION);
    gr_zk_json_key(&w, "config");
    gr_zk_json_object_begin(&w);
    for (size_t i = 0; config && i < config->count; i++) {
        gr_quota_type_t t;
        bool quota = gr_quota_type_parse(config->keys[i], strlen(config->keys[i]), &t) == 0;
        if ((quota && (remove[t] || set->has[t])) || config->items[i]->type != GR_ZK_JSON_STRING)
            continue;
        gr_zk_json_key(&w, config->keys[i]);
        gr_zk_json_string(&w, config->items[i]->string);
    }
    for (int t = 0; t < GR_QUOTA_TYPE_COUNT; t++) {
        char text[GR_QUOTA_VALUE_TEXT_MAX];
        if (!set->has[t])
            continue;
        gr_quota_value_format((gr_quota_type_t)t, set->value[t], text, sizeof text);
        gr_zk_json_key(&w, gr_quota_type_key((gr_quota_type_t)t));
        gr_zk_json_string(&w, text);
    }
    gr_zk_json_object_end(&w);
    gr_zk_json_object_end(&w);
    const char *text = NULL;
    int rc = gr_zk_json_writer_finish(&w, &text, out_len);
    *out = rc == 0 ? strndup(text, *out_len) : NULL;
    if (rc == 0 && !*out)
        rc = -ENOMEM;
    gr_zk_json_writer_fini(&w);
    gr_zk_json_free(doc);
    return rc;
}
