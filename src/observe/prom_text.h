/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Prometheus text exposition format 0.0.4, written into a gr_writer_t.
 * A metric family is announced once (HELP and TYPE), then its samples
 * follow, each with up to GR_PROM_LABELS_MAX labels. Label values are
 * escaped as the format asks (backslash, double quote, newline); names are
 * the caller's constants and are not checked.
 *
 * Runs on: the loop thread (the writer is the caller's).
 */
#ifndef GR_OBSERVE_PROM_TEXT_H
#define GR_OBSERVE_PROM_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/writer.h"

#define GR_PROM_LABELS_MAX 4

typedef enum gr_prom_type {
    GR_PROM_COUNTER,
    GR_PROM_GAUGE,
    GR_PROM_HISTOGRAM,
    GR_PROM_SUMMARY,
    GR_PROM_UNTYPED,
} gr_prom_type_t;

/* One label; value need not be NUL-terminated (value_len, or -1 for strlen). */
typedef struct gr_prom_label {
    const char *name;
    const char *value;
    int value_len;
} gr_prom_label_t;

/* A label from a NUL-terminated value. */
#define GR_PROM_LABEL(n, v) ((gr_prom_label_t){.name = (n), .value = (v), .value_len = -1})

/* "# HELP name help\n# TYPE name type\n". */
void gr_prom_family(gr_writer_t *w, const char *name, gr_prom_type_t type, const char *help);

/*
 * One sample: name{labels} value. suffix (may be NULL) is appended to name
 * ("_bucket", "_sum", "_count" of a histogram). Integral doubles are written
 * without a fraction; NaN and infinities as the format spells them.
 */
void gr_prom_sample(gr_writer_t *w, const char *name, const char *suffix,
                    const gr_prom_label_t *labels, int label_count, double value);

/* As gr_prom_sample for an integer counter (no rounding through double). */
void gr_prom_sample_u64(gr_writer_t *w, const char *name, const char *suffix,
                        const gr_prom_label_t *labels, int label_count, uint64_t value);

/* A family of one unlabelled sample: a gauge, or an integer counter. */
void gr_prom_gauge(gr_writer_t *w, const char *name, const char *help, double value);
void gr_prom_counter(gr_writer_t *w, const char *name, const char *help, uint64_t value);

#endif
