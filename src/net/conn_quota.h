/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Connection quotas, Kafka's ConnectionQuotas in two pieces the server
 * combines: open connections counted per client address (for
 * max.connections.per.ip and its overrides), and a creation-rate bucket (for
 * max.connection.creation.rate, broker-wide and per listener).
 *
 * Addresses are kept as 16 bytes, IPv4 as IPv4-mapped IPv6, so a client is
 * one address whichever family its listener accepted it on.
 *
 * The rate bucket holds up to one second of connections and refills
 * continuously; a connection taken from an empty bucket is owed, and the
 * debt is the delay before the listener accepts again. Kafka measures the
 * rate over quota.window.num windows instead; both let through `rate`
 * connections a second on average and delay, never refuse, the excess.
 *
 * Runs on: loop thread.
 */
#ifndef GR_NET_CONN_QUOTA_H
#define GR_NET_CONN_QUOTA_H

#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#define GR_CONN_QUOTA_ADDR_LEN 16
#define GR_CONN_QUOTA_BUCKETS  1024

typedef struct gr_ip_count gr_ip_count_t;

/* Open connections by client address; zeroed is empty. */
typedef struct gr_ip_counts {
    gr_ip_count_t **buckets; /* GR_CONN_QUOTA_BUCKETS chains, allocated on first use */
} gr_ip_counts_t;

/* One max.connections.per.ip.overrides entry. */
typedef struct gr_ip_override {
    uint8_t addr[GR_CONN_QUOTA_ADDR_LEN];
    uint32_t max;
} gr_ip_override_t;

/* A creation-rate bucket; rate 0 is no limit. */
typedef struct gr_rate_bucket {
    double rate;   /* connections a second */
    double tokens; /* may go negative: the debt */
    double last;   /* when tokens were last refilled, seconds */
} gr_rate_bucket_t;

/*
 * The 16-byte address of sa (IPv4 mapped into IPv6). Returns 0, or -EAFNOSUPPORT
 * for a family other than AF_INET and AF_INET6.
 */
int gr_conn_quota_addr(const struct sockaddr *sa, uint8_t out[GR_CONN_QUOTA_ADDR_LEN] /* out */);

/* Open connections from addr (0 when unknown). */
uint32_t gr_ip_counts_get(const gr_ip_counts_t *t, const uint8_t addr[GR_CONN_QUOTA_ADDR_LEN]);
/* Counts one more connection from addr. Returns 0 or -ENOMEM. */
int gr_ip_counts_inc(gr_ip_counts_t *t, const uint8_t addr[GR_CONN_QUOTA_ADDR_LEN]);
/* Counts one fewer; an address at zero is forgotten. */
void gr_ip_counts_dec(gr_ip_counts_t *t, const uint8_t addr[GR_CONN_QUOTA_ADDR_LEN]);
/* Frees the table; it is empty and usable again after. */
void gr_ip_counts_fini(gr_ip_counts_t *t);

/* Starts a full bucket for rate connections a second (0: no limit) at time now. */
void gr_rate_bucket_init(gr_rate_bucket_t *b, double rate, double now);
/*
 * Takes one connection at time now. Returns the seconds the taker should
 * wait before the next one (0 when the bucket was not empty).
 */
double gr_rate_bucket_take(gr_rate_bucket_t *b, double now);

#endif
