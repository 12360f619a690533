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
