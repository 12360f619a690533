/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the admin handlers: see admin_common.h. */
#include <stdio.h>
#include <string.h>

#include "broker/broker.h"
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
