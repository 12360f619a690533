/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the admin handlers: see admin_common.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "handlers/request.h"
#include "handlers/admin_common.h"

char *gr_admin_cstr(gr_request_t *req, gr_str_t s)
{
    return gr_arena_strndup(req->arena, s.len > 0 ? s.ptr : "", (size_t)(s.len > 0 ? s.len : 0));
}

gr_str_t gr_admin_message(gr_request_t *req, const char *msg)
{
    char *copy = gr_arena_strndup(req->arena, msg, strlen(msg));
    gr_str_t s = {copy, copy ? (int32_t)strlen(copy) : GR_NULL_LEN};
    return s;
}

bool gr_admin_is_this_broker(gr_broker_t *b, gr_str_t name, bool *is_default)
{
    char id[16];
    snprintf(id, sizeof id, "%d", b->config.broker_id);
    *is_default = name.len == 0;
    return gr_str_eq_c(name, id);
}

int gr_admin_str_cmp(const void *a, const void *b)
{
    const gr_str_t *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->len > 0 ? memcmp(x->ptr, y->ptr, (size_t)x->len) : 0;
}

static int key_cmp(const void *a, const void *b)
{
    const gr_admin_key_t *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return gr_admin_str_cmp(&x->name, &y->name);
}

void gr_admin_mark_repeats(gr_admin_key_t *keys, int32_t n, bool *dup)
{
    if (n <= 1)
        return;
    qsort(keys, (size_t)n, sizeof(*keys), key_cmp);
    for (int32_t i = 1; i < n; i++)
        if (key_cmp(&keys[i - 1], &keys[i]) == 0)
            dup[keys[i - 1].index] = dup[keys[i].index] = true;
}

/* Whether the comma-separated list holds item (items compared trimmed). */
static bool list_contains(const char *list, const char *item, size_t item_len)
{
    const char *p = list;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t trimmed = len;
        while (trimmed && p[trimmed - 1] == ' ')
            trimmed--;
        if (trimmed == item_len && strncmp(p, item, item_len) == 0)
            return true;
        p += len + (end ? 1 : 0);
    }
    return false;
}

size_t gr_admin_list_edit_size(const char *base, const char *value)
{
    return strlen(base) + strlen(value) + 2;
}

void gr_admin_list_edit(char *out, const char *base, const char *value, bool append)
{
    size_t used = 0;
    out[0] = '\0'; /* pass 1 reads what is kept so far */
    for (int pass = 0; pass < 2; pass++) {
        const char *src = pass == 0 ? base : value;
        if (pass == 1 && !append)
            break;
        const char *p = src;
        while (*p) {
            while (*p == ' ')
                p++;
            const char *end = strchr(p, ',');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            size_t item = len;
            while (item && p[item - 1] == ' ')
                item--;
            bool keep = item > 0;
            if (keep && pass == 0 && !append)
                keep = !list_contains(value, p, item);
            if (keep && pass == 1)
                keep = !list_contains(out, p, item);
            if (keep) {
                if (used)
                    out[used++] = ',';
                memcpy(out + used, p, item);
                used += item;
                out[used] = '\0';
            }
            p += len + (end ? 1 : 0);
        }
    }
    out[used] = '\0';
}
