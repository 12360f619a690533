/* SPDX-License-Identifier: Apache-2.0 */
/* ACL znodes and change notifications in Kafka's format: see acl_znode.h. */
#include "security/acl_znode.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *gr_acl_znode_root(gr_acl_pattern_t pattern)
{
    if (pattern == GR_ACL_PATTERN_LITERAL)
        return GR_ACL_ZNODE_LITERAL_PATH;
    return pattern == GR_ACL_PATTERN_PREFIXED ? GR_ACL_ZNODE_PREFIXED_PATH : NULL;
}

const char *gr_acl_znode_changes_root(gr_acl_pattern_t pattern)
{
    if (pattern == GR_ACL_PATTERN_LITERAL)
        return GR_ACL_ZNODE_LITERAL_CHANGES_PATH;
    return pattern == GR_ACL_PATTERN_PREFIXED ? GR_ACL_ZNODE_EXTENDED_CHANGES_PATH : NULL;
}

int gr_acl_znode_path(gr_acl_resource_type_t type, gr_acl_pattern_t pattern, const char *name,
                      char *out, size_t out_len)
{
    const char *root = gr_acl_znode_root(pattern);
    if (!root || strchr(name, '/') || !name[0])
        return -EINVAL;
    int n = snprintf(out, out_len, "%s/%s/%s", root, gr_acl_resource_type_znode(type), name);
    return n < 0 || (size_t)n >= out_len ? -ENAMETOOLONG : 0;
}

static void encode_entry(gr_zk_json_writer_t *w, const gr_acl_binding_t *a)
{
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "principal");
    gr_zk_json_string(w, a->principal);
    gr_zk_json_key(w, "permissionType");
    gr_zk_json_string(w, gr_acl_permission_znode(a->permission));
    gr_zk_json_key(w, "operation");
    gr_zk_json_string(w, gr_acl_op_znode(a->op));
    gr_zk_json_key(w, "host");
    gr_zk_json_string(w, a->host);
    gr_zk_json_object_end(w);
}

int gr_acl_znode_encode(const gr_acl_set_t *set, gr_acl_resource_type_t type,
                        gr_acl_pattern_t pattern, const char *name, gr_zk_json_writer_t *w)
{
    gr_zk_json_object_begin(w);
    gr_zk_json_key(w, "version");
    gr_zk_json_int(w, GR_ACL_ZNODE_VERSION);
    gr_zk_json_key(w, "acls");
    gr_zk_json_array_begin(w);
    for (size_t i = 0; i < set->count; i++) {
        const gr_acl_binding_t *a = &set->items[i];
        if (a->type == type && a->pattern == pattern && strcmp(a->name, name) == 0)
            encode_entry(w, a);
    }
    gr_zk_json_array_end(w);
    gr_zk_json_object_end(w);
    return w->err;
}

static const char *string_member(const gr_zk_json_t *obj, const char *key)
{
    const gr_zk_json_t *v = gr_zk_json_find(obj, key);
    return v && v->type == GR_ZK_JSON_STRING ? v->string : NULL;
}

/* One entry of "acls": 1 read into a, 0 skipped (unknown names), -EINVAL. */
static int decode_entry(const gr_zk_json_t *e, gr_acl_binding_t *a)
{
    const char *principal = string_member(e, "principal");
    const char *permission = string_member(e, "permissionType");
    const char *op = string_member(e, "operation");
    const char *host = string_member(e, "host");
    if (!principal || !permission || !op || !host)
        return -EINVAL;
    if (strlen(principal) >= sizeof a->principal || strlen(host) >= sizeof a->host)
        return 0;
    snprintf(a->principal, sizeof a->principal, "%s", principal);
    snprintf(a->host, sizeof a->host, "%s", host);
    a->permission = gr_acl_permission_parse(permission);
    a->op = gr_acl_op_parse(op);
    bool known = a->op > GR_ACL_OPERATION_ANY && (a->permission == GR_ACL_PERMISSION_ALLOW ||
                                                  a->permission == GR_ACL_PERMISSION_DENY);
    return known ? 1 : 0;
}

int gr_acl_znode_decode(const char *data, size_t len, gr_acl_resource_type_t type,
                        gr_acl_pattern_t pattern, const char *name, gr_acl_set_t *out)
{
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(data, len, &doc);
    if (rc)
        return rc;
    const gr_zk_json_t *acls = gr_zk_json_find(doc, "acls");
    if (!acls || acls->type != GR_ZK_JSON_ARRAY)
        rc = -EINVAL;
    gr_acl_binding_t a = {.type = type, .pattern = pattern, .name = (char *)name};
    for (size_t i = 0; rc == 0 && i < acls->count; i++) {
        int one = decode_entry(acls->items[i], &a);
        if (one < 0)
            rc = one;
        else if (one > 0)
            rc = gr_acl_set_add(out, &a);
    }
    gr_zk_json_free(doc);
    return rc;
}

static int encode_extended(gr_acl_resource_type_t type, gr_acl_pattern_t pattern, const char *name,
                           char *out, size_t out_cap, size_t *out_len)
{
    gr_zk_json_writer_t w;
    gr_zk_json_writer_init(&w);
    gr_zk_json_object_begin(&w);
    gr_zk_json_key(&w, "version");
    gr_zk_json_int(&w, GR_ACL_ZNODE_VERSION);
    gr_zk_json_key(&w, "resourceType");
    gr_zk_json_string(&w, gr_acl_resource_type_name(type));
    gr_zk_json_key(&w, "name");
    gr_zk_json_string(&w, name);
    gr_zk_json_key(&w, "patternType");
    gr_zk_json_string(&w, gr_acl_pattern_name(pattern));
    gr_zk_json_object_end(&w);
    const char *text;
    int rc = gr_zk_json_writer_finish(&w, &text, out_len);
    if (rc == 0 && *out_len >= out_cap)
        rc = -ENAMETOOLONG;
    if (rc == 0)
        memcpy(out, text, *out_len + 1);
    gr_zk_json_writer_fini(&w);
    return rc;
}

int gr_acl_change_encode(gr_acl_resource_type_t type, gr_acl_pattern_t pattern, const char *name,
                         char *out, size_t out_cap, size_t *out_len)
{
    if (pattern == GR_ACL_PATTERN_PREFIXED)
        return encode_extended(type, pattern, name, out, out_cap, out_len);
    if (pattern != GR_ACL_PATTERN_LITERAL)
        return -EINVAL;
    int n = snprintf(out, out_cap, "%s:%s", gr_acl_resource_type_name(type), name);
    if (n < 0 || (size_t)n >= out_cap)
        return -ENAMETOOLONG;
    *out_len = (size_t)n;
    return 0;
}

static int copy_name(const char *s, size_t len, char *name, size_t name_len)
{
    if (len == 0 || len >= name_len || memchr(s, '\0', len))
        return -EINVAL;
    memcpy(name, s, len);
    name[len] = '\0';
    return 0;
}

static int decode_extended(const char *data, size_t len, gr_acl_resource_type_t *type,
                           gr_acl_pattern_t *pattern, char *name, size_t name_len)
{
    gr_zk_json_t *doc = NULL;
    int rc = gr_zk_json_parse(data, len, &doc);
    if (rc)
        return rc;
    const char *t = string_member(doc, "resourceType");
    const char *p = string_member(doc, "patternType");
    const gr_zk_json_t *n = gr_zk_json_find(doc, "name");
    *type = gr_acl_resource_type_parse(t);
    *pattern = gr_acl_pattern_parse(p);
    if (!n || n->type != GR_ZK_JSON_STRING || *type <= GR_ACL_RESOURCE_TYPE_ANY ||
        *pattern != GR_ACL_PATTERN_PREFIXED)
        rc = -EINVAL;
    else
        rc = copy_name(n->string, n->string_len, name, name_len);
    gr_zk_json_free(doc);
    return rc;
}

int gr_acl_change_decode(const char *data, size_t len, gr_acl_pattern_t family,
                         gr_acl_resource_type_t *type, gr_acl_pattern_t *pattern, char *name,
                         size_t name_len)
{
    if (family == GR_ACL_PATTERN_PREFIXED)
        return decode_extended(data, len, type, pattern, name, name_len);
    const char *colon = memchr(data, ':', len);
    char type_name[GR_ACL_HOST_MAX];
    size_t type_len = colon ? (size_t)(colon - data) : 0;
    if (!colon || type_len == 0 || type_len >= sizeof type_name)
        return -EINVAL;
    memcpy(type_name, data, type_len);
    type_name[type_len] = '\0';
    *type = gr_acl_resource_type_parse(type_name);
    *pattern = GR_ACL_PATTERN_LITERAL;
    if (*type <= GR_ACL_RESOURCE_TYPE_ANY)
        return -EINVAL;
    return copy_name(colon + 1, len - type_len - 1, name, name_len);
}
