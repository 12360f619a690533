/* SPDX-License-Identifier: Apache-2.0 */
/* max.connections.per.ip.overrides' grammar: see ip_overrides.h. */
#include "core/ip_overrides.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int gr_ip_override_parse(const char *item, size_t len, char host[GR_IP_OVERRIDE_HOST_MAX],
                         uint32_t *count)
{
    if (len >= GR_IP_OVERRIDE_HOST_MAX)
        return -EINVAL;
    memcpy(host, item, len);
    host[len] = '\0';
    char *colon = strrchr(host, ':');
    if (!colon || colon == host || !colon[1])
        return -EINVAL;
    char *end;
    errno = 0;
    long v = strtol(colon + 1, &end, 10);
    if (errno || *end || v < 0 || v > INT_MAX)
        return -EINVAL;
    *count = (uint32_t)v;
    *colon = '\0';
    size_t host_len = strlen(host);
    if (host[0] == '[' && host_len > 1 && host[host_len - 1] == ']') {
        memmove(host, host + 1, host_len - 2);
        host[host_len - 2] = '\0';
    }
    return host[0] ? 0 : -EINVAL;
}

int gr_ip_overrides_each(const char *list, gr_ip_override_item_fn *fn, void *arg)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        const char *item = p;
        size_t item_len = len;
        while (item_len && (*item == ' ' || *item == '\t'))
            item++, item_len--;
        while (item_len && (item[item_len - 1] == ' ' || item[item_len - 1] == '\t'))
            item_len--;
        int rc = item_len ? fn(item, item_len, arg) : 0;
        if (rc)
            return rc;
        p += len + (p[len] == ',');
    }
    return 0;
}

static int check_item(const char *item, size_t len, void *arg)
{
    char host[GR_IP_OVERRIDE_HOST_MAX];
    uint32_t count;
    (void)arg;
    return gr_ip_override_parse(item, len, host, &count);
}

bool gr_ip_overrides_known(const char *list)
{
    return gr_ip_overrides_each(list, check_item, NULL) == 0;
}
