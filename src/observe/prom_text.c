/* SPDX-License-Identifier: Apache-2.0 */
#include "observe/prom_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void write_str(gr_writer_t *w, const char *s)
{
    gr_write_raw(w, s, strlen(s));
}

static const char *type_name(gr_prom_type_t type)
{
    switch (type) {
    case GR_PROM_COUNTER:
        return "counter";
    case GR_PROM_GAUGE:
        return "gauge";
    case GR_PROM_HISTOGRAM:
        return "histogram";
    case GR_PROM_SUMMARY:
        return "summary";
    case GR_PROM_UNTYPED:
        break;
    }
    return "untyped";
}

void gr_prom_family(gr_writer_t *w, const char *name, gr_prom_type_t type, const char *help)
{
    write_str(w, "# HELP ");
    write_str(w, name);
    gr_write_raw(w, " ", 1);
    /* HELP text escapes only backslash and newline; ours are constants without either. */
    write_str(w, help);
    write_str(w, "\n# TYPE ");
    write_str(w, name);
    gr_write_raw(w, " ", 1);
    write_str(w, type_name(type));
    gr_write_raw(w, "\n", 1);
}

static void write_label_value(gr_writer_t *w, const char *v, int len)
{
    size_t n = len < 0 ? strlen(v) : (size_t)len;
    size_t run = 0; /* bytes copied as they are, flushed before an escape */
    for (size_t i = 0; i < n; i++) {
        const char *esc = v[i] == '\\'   ? "\\\\"
                          : v[i] == '"'  ? "\\\""
                          : v[i] == '\n' ? "\\n"
                                         : NULL;
        if (!esc)
            continue;
        gr_write_raw(w, v + run, i - run);
        write_str(w, esc);
        run = i + 1;
    }
    gr_write_raw(w, v + run, n - run);
}

static void write_name_labels(gr_writer_t *w, const char *name, const char *suffix,
                              const gr_prom_label_t *labels, int label_count)
{
    write_str(w, name);
    if (suffix)
        write_str(w, suffix);
    if (label_count <= 0)
        return;
    gr_write_raw(w, "{", 1);
    for (int i = 0; i < label_count; i++) {
        if (i)
            gr_write_raw(w, ",", 1);
        write_str(w, labels[i].name);
        write_str(w, "=\"");
        write_label_value(w, labels[i].value, labels[i].value_len);
        gr_write_raw(w, "\"", 1);
    }
    gr_write_raw(w, "}", 1);
}

void gr_prom_sample(gr_writer_t *w, const char *name, const char *suffix,
                    const gr_prom_label_t *labels, int label_count, double value)
{
    char num[48];
    int len;
    if (isnan(value))
        len = snprintf(num, sizeof num, "NaN");
    else if (isinf(value))
        len = snprintf(num, sizeof num, value > 0 ? "+Inf" : "-Inf");
    else if (fabs(value) < 1e15 && value == (double)(int64_t)value)
        len = snprintf(num, sizeof num, "%" PRId64, (int64_t)value);
    else
        len = snprintf(num, sizeof num, "%.17g", value);
    write_name_labels(w, name, suffix, labels, label_count);
    gr_write_raw(w, " ", 1);
    gr_write_raw(w, num, (size_t)len);
    gr_write_raw(w, "\n", 1);
}

void gr_prom_sample_u64(gr_writer_t *w, const char *name, const char *suffix,
                        const gr_prom_label_t *labels, int label_count, uint64_t value)
{
    char num[24];
    int len = snprintf(num, sizeof num, "%" PRIu64, value);
    write_name_labels(w, name, suffix, labels, label_count);
    gr_write_raw(w, " ", 1);
    gr_write_raw(w, num, (size_t)len);
    gr_write_raw(w, "\n", 1);
}

void gr_prom_gauge(gr_writer_t *w, const char *name, const char *help, double value)
{
    gr_prom_family(w, name, GR_PROM_GAUGE, help);
    gr_prom_sample(w, name, NULL, NULL, 0, value);
}

void gr_prom_counter(gr_writer_t *w, const char *name, const char *help, uint64_t value)
{
    gr_prom_family(w, name, GR_PROM_COUNTER, help);
    gr_prom_sample_u64(w, name, NULL, NULL, 0, value);
}
