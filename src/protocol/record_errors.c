/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The records a batch was refused for: see record_errors.h.
 *
 * The list grows by doubling inside the arena; an arena cannot give memory
 * back, so the old copies stay until the request ends (at most as much
 * again as the final list). Messages are formatted only for listed
 * entries: a count-only collection, or one past GR_RECORD_ERRORS_MAX, costs
 * no memory per record.
 */
#include "record_errors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Longest reason formatted by gr_record_errors_vaddf (Kafka's are well below). */
#define REASON_MAX 512
/* The first list's room. */
#define LIST_MIN 16
/* How many entries Kafka's INVALID_RECORD summary shows. */
#define SUMMARY_SHOWN 3

void gr_record_errors_init(gr_record_errors_t *e, gr_arena_t *arena)
{
    memset(e, 0, sizeof(*e));
    e->arena = arena;
    e->max = GR_RECORD_ERRORS_MAX;
}

void gr_record_errors_clear(gr_record_errors_t *e)
{
    e->listed = 0;
    e->count = 0;
    e->timestamp = false;
    e->err = 0;
}

/* True if the next error will be listed: room is made for it when needed. */
static bool make_room(gr_record_errors_t *e)
{
    if (!e->arena || e->err || e->listed >= e->max)
        return false;
    if (e->listed < e->cap)
        return true;
    int32_t cap = e->cap ? e->cap * 2 : LIST_MIN;
    if (cap > e->max)
        cap = e->max;
    gr_record_error_t *list = gr_arena_alloc_array(e->arena, cap, sizeof(*list));
    if (!list) {
        e->err = -ENOMEM;
        return false;
    }
    if (e->listed)
        memcpy(list, e->list, (size_t)e->listed * sizeof(*list));
    e->list = list;
    e->cap = cap;
    return true;
}

static void count(gr_record_errors_t *e, gr_kerr_t kind)
{
    e->count++;
    e->timestamp |= kind == GR_KERR_INVALID_TIMESTAMP;
}

/* The arena's copy of message: the previous entry's when it says the same. */
static const char *copy_reason(gr_record_errors_t *e, const char *message, size_t len)
{
    if (e->listed > 0) {
        const char *previous = e->list[e->listed - 1].message;
        if (previous && strlen(previous) == len && memcmp(previous, message, len) == 0)
            return previous;
    }
    return gr_arena_strndup(e->arena, message, len);
}

static void list_reason(gr_record_errors_t *e, int32_t index, const char *message, size_t len)
{
    const char *copy = copy_reason(e, message, len);
    if (copy)
        e->list[e->listed++] = (gr_record_error_t){index, copy};
    else
        e->err = -ENOMEM;
}

void gr_record_errors_add(gr_record_errors_t *e, gr_kerr_t kind, int32_t index, const char *message)
{
    if (make_room(e))
        list_reason(e, index, message, strlen(message));
    count(e, kind);
}

void gr_record_errors_vaddf(gr_record_errors_t *e, gr_kerr_t kind, int32_t index, const char *fmt,
                            va_list ap)
{
    if (make_room(e)) {
        char reason[REASON_MAX];
        int n = vsnprintf(reason, sizeof reason, fmt, ap);
        size_t len = n < 0 ? 0 : (size_t)n < sizeof reason ? (size_t)n : sizeof reason - 1;
        list_reason(e, index, reason, len);
    }
    count(e, kind);
}

gr_kerr_t gr_record_errors_kerr(const gr_record_errors_t *e)
{
    if (e->count == 0)
        return GR_KERR_NONE;
    return e->timestamp ? GR_KERR_INVALID_TIMESTAMP : GR_KERR_INVALID_RECORD;
}

/* snprintf at out + *pos with what room is left (none when out is NULL), advancing *pos. */
static void append(char *out, size_t room, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *out, size_t room, size_t *pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out ? out + *pos : NULL, out ? room - *pos : 0, fmt, ap);
    va_end(ap);
    *pos += n > 0 ? (size_t)n : 0;
}

/*
 * Kafka's INVALID_RECORD summary, RecordError.toString() for the entries
 * shown, written to out (room bytes, or nothing when out is NULL).
 * Returns its length.
 */
static size_t write_summary(const gr_record_errors_t *e, char *out, size_t room)
{
    int shown = e->listed < SUMMARY_SHOWN ? e->listed : SUMMARY_SHOWN;
    size_t pos = 0;
    append(out, room, &pos,
           "One or more records have been rejected due to %lld record errors in total, and "
           "only showing the first three errors at most: [",
           (long long)e->count);
    for (int i = 0; i < shown; i++) {
        const gr_record_error_t *entry = &e->list[i];
        append(out, room, &pos, "%sRecordError(batchIndex=%d, message=", i ? ", " : "",
               (int)entry->index);
        if (entry->message)
            append(out, room, &pos, "'%s')", entry->message);
        else
            append(out, room, &pos, "null)");
    }
    append(out, room, &pos, "]");
    return pos;
}

char *gr_record_errors_summary(const gr_record_errors_t *e)
{
    if (!e->arena || e->count == 0)
        return NULL;
    if (e->timestamp) {
        static const char timestamp[] =
            "One or more records have been rejected due to invalid timestamp";
        return gr_arena_strndup(e->arena, timestamp, sizeof timestamp - 1);
    }
    size_t size = write_summary(e, NULL, 0) + 1;
    char *out = gr_arena_alloc(e->arena, size);
    if (out)
        write_summary(e, out, size);
    return out;
}
