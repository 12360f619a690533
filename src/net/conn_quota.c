/* SPDX-License-Identifier: Apache-2.0 */
/* Per-address connection counts and creation-rate buckets: see conn_quota.h. Runs on: loop thread.
 */
#include "net/conn_quota.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

struct gr_ip_count {
    gr_ip_count_t *next;
    uint8_t addr[GR_CONN_QUOTA_ADDR_LEN];
    uint32_t count;
};

int gr_conn_quota_addr(const struct sockaddr *sa, uint8_t out[GR_CONN_QUOTA_ADDR_LEN])
{
    if (sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, GR_CONN_QUOTA_ADDR_LEN);
        return 0;
    }
    if (sa->sa_family != AF_INET)
        return -EAFNOSUPPORT;
    /* ::ffff:a.b.c.d, as a dual-stack listener reports an IPv4 client. */
    memset(out, 0, 10);
    out[10] = 0xff;
    out[11] = 0xff;
    memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    return 0;
}

/* FNV-1a over the address. */
static size_t bucket_of(const uint8_t addr[GR_CONN_QUOTA_ADDR_LEN])
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < GR_CONN_QUOTA_ADDR_LEN; i++)
        h = (h ^ addr[i]) * 16777619u;
    return h % GR_CONN_QUOTA_BUCKETS;
}

static gr_ip_count_t **find_link(const gr_ip_counts_t *t,
                                 const uint8_t addr[GR_CONN_QUOTA_ADDR_LEN])
{
    gr_ip_count_t **link = &t->buckets[bucket_of(addr)];
    while (*link && memcmp((*link)->addr, addr, GR_CONN_QUOTA_ADDR_LEN) != 0)
        link = &(*link)->next;
    return link;
}

uint32_t gr_ip_counts_get(const gr_ip_counts_t *t, const uint8_t addr[GR_CONN_QUOTA_ADDR_LEN])
{
    if (!t->buckets)
        return 0;
    gr_ip_count_t *e = *find_link(t, addr);
    return e ? e->count : 0;
}

int gr_ip_counts_inc(gr_ip_counts_t *t, const uint8_t addr[GR_CONN_QUOTA_ADDR_LEN])
{
    if (!t->buckets) {
        t->buckets = calloc(GR_CONN_QUOTA_BUCKETS, sizeof(*t->buckets));
        if (!t->buckets)
            return -ENOMEM;
    }
    gr_ip_count_t **link = find_link(t, addr);
    if (!*link) {
        gr_ip_count_t *e = calloc(1, sizeof(*e));
        if (!e)
            return -ENOMEM;
        memcpy(e->addr, addr, GR_CONN_QUOTA_ADDR_LEN);
        *link = e;
    }
    (*link)->count++;
    return 0;
}

void gr_ip_counts_dec(gr_ip_counts_t *t, const uint8_t addr[GR_CONN_QUOTA_ADDR_LEN])
{
    if (!t->buckets)
        return;
    gr_ip_count_t **link = find_link(t, addr);
    gr_ip_count_t *e = *link;
    if (!e)
        return;
    if (--e->count == 0) {
        *link = e->next;
        free(e);
    }
}

void gr_ip_counts_fini(gr_ip_counts_t *t)
{
    if (!t->buckets)
        return;
    for (size_t i = 0; i < GR_CONN_QUOTA_BUCKETS; i++) {
        while (t->buckets[i]) {
            gr_ip_count_t *e = t->buckets[i];
            t->buckets[i] = e->next;
            free(e);
        }
    }
    free(t->buckets);
    t->buckets = NULL;
}

void gr_rate_bucket_init(gr_rate_bucket_t *b, double rate, double now)
{
    b->rate = rate > 0 ? rate : 0;
    b->tokens = b->rate;
    b->last = now;
}

double gr_rate_bucket_take(gr_rate_bucket_t *b, double now)
{
    if (b->rate <= 0)
        return 0;
    if (now > b->last) {
        b->tokens += (now - b->last) * b->rate;
        if (b->tokens > b->rate)
            b->tokens = b->rate; /* at most one second's burst */
        b->last = now;
    }
    b->tokens -= 1;
    return b->tokens >= 0 ? 0 : -b->tokens / b->rate;
}
