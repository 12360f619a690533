/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The records a batch was refused for (KIP-467): each bad record's index in
 * its batch and reason, gathered while the batch is checked, for a Produce
 * response's record_errors (v8+) and its summary for error_message.
 *
 * Kafka checks every record of a batch, keeps going past a bad one, and
 * then refuses the batch whole: with INVALID_TIMESTAMP if any record's
 * timestamp was wrong, else with INVALID_RECORD (gr_record_errors_kerr). The
 * list keeps errors in the order they are added (record order) and lives in
 * the request's arena, like the rest of the response. Kafka lists every bad
 * record; here the list stops at GR_RECORD_ERRORS_MAX entries (count keeps
 * counting), so that a small compressed batch of millions of bad records
 * cannot make a response of hundreds of megabytes.
 *
 * Runs on: the thread that owns the arena.
 */
#ifndef GR_PROTOCOL_RECORD_ERRORS_H
#define GR_PROTOCOL_RECORD_ERRORS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "kerr.h"

/*
 * Record errors a collection lists by default (more are counted, not
 * listed). The produce handler spends one such budget per request, across
 * its partitions, so a request of many small compressed batches of bad
 * records cannot make it build megabytes of reasons.
 */
#define GR_RECORD_ERRORS_MAX 10000

typedef struct gr_record_error {
    int32_t index;       /* the record's place in its batch, from 0 */
    const char *message; /* why it was refused; entries may share one string */
} gr_record_error_t;

typedef struct gr_record_errors {
    gr_arena_t *arena;       /* where the list and its messages live; NULL: count only */
    gr_record_error_t *list; /* the first `listed` errors, in the order added */
    int32_t listed;
    int32_t max;    /* listed stops here: GR_RECORD_ERRORS_MAX after init */
    int32_t cap;    /* entries list has room for */
    int64_t count;  /* every error added since init or clear, listed or not */
    bool timestamp; /* one of them is GR_KERR_INVALID_TIMESTAMP */
    int err;        /* -ENOMEM once the list could not grow: it was cut short there */
} gr_record_errors_t;

/* An empty collection whose list and messages go into arena (NULL: count only). */
void gr_record_errors_init(gr_record_errors_t *e, gr_arena_t *arena);

/* Forgets every error (a batch found malformed after all); the arena's memory stays used. */
void gr_record_errors_clear(gr_record_errors_t *e);

/*
 * Adds the record at index, refused with kind (GR_KERR_INVALID_RECORD or
 * GR_KERR_INVALID_TIMESTAMP) for message, copied into the arena when the
 * entry is listed (a reason equal to the previous entry's shares its copy:
 * a hundred records without a key cost one string).
 */
void gr_record_errors_add(gr_record_errors_t *e, gr_kerr_t kind, int32_t index,
                          const char *message);

/* As gr_record_errors_add(), the reason formatted only if the entry is listed. */
void gr_record_errors_vaddf(gr_record_errors_t *e, gr_kerr_t kind, int32_t index, const char *fmt,
                            va_list ap) __attribute__((format(printf, 4, 0)));

/* The batch's error: GR_KERR_NONE with no errors, else Kafka's choice described above. */
gr_kerr_t gr_record_errors_kerr(const gr_record_errors_t *e);

/*
 * Kafka's summary of the errors for the partition's error_message: for
 * timestamps a fixed sentence, else the count and the first three entries.
 * Returns a string in the arena, or NULL with no errors, no arena or no memory.
 */
char *gr_record_errors_summary(const gr_record_errors_t *e);

#endif
