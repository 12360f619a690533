/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Client quotas applied to requests (quota/quotas.h has the rules): who a
 * request counts against (its session's user, its client id), the bytes of
 * Produce and Fetch, and the loop-thread time of every other request when
 * some request_percentage quota exists.
 *
 * A throttled client (KIP-219): its response goes out at once with
 * throttle_time_ms, and its connection is muted for that long
 * (gr_conn_throttle), for every request version. Clients older than KIP-219
 * (Produce < v6, Fetch < v8) expect the broker to delay the response
 * instead; muting holds their next requests just as long, which is what
 * the delay achieved, and keeps one code path.
 *
 * Runs on: loop thread.
 */
#ifndef GR_HANDLERS_QUOTA_THROTTLE_H
#define GR_HANDLERS_QUOTA_THROTTLE_H

#include <stdint.h>

#include "handlers/request.h"
#include "quota/quotas.h"

/*
 * Records value (bytes) of type for req's client and returns the throttle
 * time due, in ms, at least req->throttle_ms (the request quota's). 0 at
 * the cost of a flag check when no quota of type exists.
 */
int32_t gr_request_quota_record(gr_request_t *req, gr_quota_type_t type, double value);

/*
 * Mutes req's connection for ms (nothing for 0). Call before completing
 * the request: afterwards the request may be freed.
 */
void gr_request_throttle(gr_request_t *req, int32_t ms);

/*
 * Runs handle for req, measuring its loop-thread time against the request
 * quota when one exists (ApiVersions and the SASL APIs are exempt, as in
 * Kafka), and mutes the connection when the client is over it.
 */
void gr_request_handle_measured(gr_broker_t *b, gr_request_t *req, gr_handler_fn handle);

#endif
