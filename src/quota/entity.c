/* SPDX-License-Identifier: Apache-2.0 */
/* Quota entity names and paths: see entity.h. Runs on: any thread. */
#include "quota/entity.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "metadata/config_entity.h"

int gr_quota_part_set(gr_quota_part_t *p, const char *name)
{
    p->present = true;
    p->is_default = name == NULL;
    if (!name) {
        p->name[0] = '\0';
        return 0;
    }
    if (strlen(name) > GR_QUOTA_NAME_MAX)
        return -ENAMETOOLONG;
    snprintf(p->name, sizeof p->name, "%s", name);
    return 0;
}

/* A part's path component: "<default>" or the sanitized name. */
static int part_component(const gr_quota_part_t *p, char *out, size_t out_len)
{
    if (p->is_default)
        return snprintf(out, out_len, GR_QUOTA_DEFAULT_NAME) < (int)out_len ? 0 : -ENAMETOOLONG;
    return gr_config_entity_sanitize(p->name, strlen(p->name), out, out_len);
}

int gr_quota_entity_path(const gr_quota_entity_t *e, char *out, size_t out_len)
{
    char user[GR_QUOTA_PATH_MAX], client[GR_QUOTA_PATH_MAX];
    if ((e->user.present && part_component(&e->user, user, sizeof user)) ||
        (e->client.present && part_component(&e->client, client, sizeof client)))
        return -ENAMETOOLONG;
    int n;
    if (e->user.present && e->client.present)
        n = snprintf(out, out_len, GR_QUOTA_USERS "/%s/" GR_QUOTA_CLIENTS "/%s", user, client);
    else if (e->user.present)
        n = snprintf(out, out_len, GR_QUOTA_USERS "/%s", user);
    else if (e->client.present)
        n = snprintf(out, out_len, GR_QUOTA_CLIENTS "/%s", client);
    else
        return -EINVAL;
    return n >= 0 && (size_t)n < out_len ? 0 : -ENAMETOOLONG;
}

/* Reads one path component (up to '/' or the end) into p. */
static int parse_part(const char *text, size_t len, gr_quota_part_t *p)
{
    if (len == 0)
        return -EINVAL;
    if (len == strlen(GR_QUOTA_DEFAULT_NAME) && memcmp(text, GR_QUOTA_DEFAULT_NAME, len) == 0)
        return gr_quota_part_set(p, NULL);
    p->present = true;
    p->is_default = false;
    return gr_config_entity_desanitize(text, len, p->name, sizeof p->name, NULL) ? -EINVAL : 0;
}

int gr_quota_entity_parse(const char *path, gr_quota_entity_t *e)
{
    memset(e, 0, sizeof *e);
    const char *clients = GR_QUOTA_CLIENTS "/";
    const char *users = GR_QUOTA_USERS "/";
    if (strncmp(path, clients, strlen(clients)) == 0) {
        const char *name = path + strlen(clients);
        return strchr(name, '/') ? -EINVAL : parse_part(name, strlen(name), &e->client);
    }
    if (strncmp(path, users, strlen(users)) != 0)
        return -EINVAL;
    const char *name = path + strlen(users);
    const char *slash = strchr(name, '/');
    if (!slash)
        return parse_part(name, strlen(name), &e->user);
    if (parse_part(name, (size_t)(slash - name), &e->user))
        return -EINVAL;
    if (strncmp(slash + 1, clients, strlen(clients)) != 0)
        return -EINVAL;
    const char *client = slash + 1 + strlen(clients);
    return strchr(client, '/') ? -EINVAL : parse_part(client, strlen(client), &e->client);
}

static bool part_eq(const gr_quota_part_t *a, const gr_quota_part_t *b)
{
    return a->present == b->present && a->is_default == b->is_default &&
           strcmp(a->name, b->name) == 0;
}

bool gr_quota_entity_eq(const gr_quota_entity_t *a, const gr_quota_entity_t *b)
{
    return part_eq(&a->user, &b->user) && part_eq(&a->client, &b->client);
}
