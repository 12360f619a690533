/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The grammar of max.connections.per.ip.overrides: "host:count" items,
 * comma-separated, the count after the last ':' (so IPv6 literals work,
 * bracketed or not). Checked where the config is set (file or live
 * change); the broker resolves the hosts when it applies them
 * (broker/conn_limits.c).
 *
 * Runs on: any thread (pure functions).
 */
#ifndef GR_CORE_IP_OVERRIDES_H
#define GR_CORE_IP_OVERRIDES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_IP_OVERRIDE_HOST_MAX 256

/*
 * One item (len bytes, trimmed) into host (brackets removed) and *count.
 * 0, or -EINVAL when it is not host:count with count in 0..INT32_MAX.
 */
int gr_ip_override_parse(const char *item, size_t len, char host[GR_IP_OVERRIDE_HOST_MAX],
                         uint32_t *count);

/* Whether every item of the list parses (empty items are skipped). */
bool gr_ip_overrides_known(const char *list);

typedef int gr_ip_override_item_fn(const char *item, size_t len, void *arg);
/*
 * Calls fn on each comma-separated item of list, blanks around it trimmed,
 * empty items skipped. Stops at fn's first non-zero return and returns it; 0
 * when every item was taken.
 */
int gr_ip_overrides_each(const char *list, gr_ip_override_item_fn *fn, void *arg);

#endif
