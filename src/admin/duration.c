/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ISO-8601 durations as Java's Duration.parse reads them
 * (kafka-consumer-groups.sh --by-duration): "PnDTnHnMn.nS", letters in
 * either case, each number optionally signed, the whole optionally
 * negated, at least one section, and a "T" only before a time section.
 * Examples: P1D, PT1H30M, PT0.5S, -PT6H.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>

#include "admin/admin.h"

#define MS_PER_SECOND 1000LL
#define MS_PER_MINUTE (60 * MS_PER_SECOND)
#define MS_PER_HOUR   (60 * MS_PER_MINUTE)
#define MS_PER_DAY    (24 * MS_PER_HOUR)
#define NUMBER_MAX    (INT64_MAX / MS_PER_DAY)

/* A signed whole number at *p; with fraction, its ".nnn" part as milliseconds. */
static bool parse_number(const char **p, bool fraction, int64_t *whole, int64_t *ms)
{
    const char *s = *p;
    bool negative = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    int64_t n = 0;
    for (; isdigit((unsigned char)*s); s++) {
        n = n * 10 + (*s - '0');
        if (n > NUMBER_MAX)
            return false;
    }
    *ms = 0;
    if (fraction && (*s == '.' || *s == ',')) {
        s++;
        int64_t scale = 100;
        for (int digits = 0; isdigit((unsigned char)*s); s++, digits++) {
            if (digits == 9)
                return false; /* Java takes nanoseconds at most */
            *ms += (*s - '0') * scale;
            scale /= 10;
        }
        if (negative)
            *ms = -*ms;
    }
    *whole = negative ? -n : n;
    *p = s;
    return true;
}

int gr_admin_duration_parse(const char *text, int64_t *out_ms)
{
    const char *p = text;
    bool negative = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (toupper((unsigned char)*p++) != 'P')
        return -1;
    static const struct {
        char unit;
        int64_t ms;
        bool time;
    } sections[] = {{'D', MS_PER_DAY, false},
                    {'H', MS_PER_HOUR, true},
                    {'M', MS_PER_MINUTE, true},
                    {'S', MS_PER_SECOND, true}};
    int64_t total = 0;
    bool in_time = false, any = false, time_any = false;
    size_t next = 0;
    while (*p) {
        if (toupper((unsigned char)*p) == 'T' && !in_time) {
            in_time = true;
            p++;
            continue;
        }
        int64_t whole = 0, ms = 0;
        if (!parse_number(&p, in_time, &whole, &ms))
            return -1;
        size_t i = next;
        while (i < 4 && sections[i].unit != toupper((unsigned char)*p))
            i++;
        if (i == 4 || sections[i].time != in_time || (ms && sections[i].unit != 'S'))
            return -1;
        total += whole * sections[i].ms + ms;
        next = i + 1;
        any = true;
        time_any |= in_time;
        p++;
    }
    if (!any || (in_time && !time_any))
        return -1;
    *out_ms = negative ? -total : total;
    return 0;
}
