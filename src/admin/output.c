/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin's output: aligned tables for people (column widths from the
 * widest cell, two spaces between columns) and JSON helpers for scripts.
 */
#include <stdlib.h>
#include <string.h>

#include "admin/admin.h"

void gr_table_init(gr_table_t *t, const char *const *headers, int cols)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    for (int i = 0; i < cols; i++)
        t->headers[i] = headers[i];
}

void gr_table_row(gr_table_t *t, const char *const *cells)
{
    if (t->count == t->cap) {
        int cap = t->cap ? t->cap * 2 : 16;
        char ***rows = realloc(t->rows, (size_t)cap * sizeof(*rows));
        if (!rows)
            return;
        t->rows = rows;
        t->cap = cap;
    }
    char **row = calloc((size_t)t->cols, sizeof(*row));
    if (!row)
        return;
    for (int i = 0; i < t->cols; i++)
        row[i] = strdup(cells[i] ? cells[i] : "");
    t->rows[t->count++] = row;
}

void gr_table_print(gr_table_t *t, FILE *out)
{
    size_t width[GR_TABLE_COLS_MAX];
    for (int c = 0; c < t->cols; c++) {
        width[c] = strlen(t->headers[c]);
        for (int r = 0; r < t->count; r++)
            if (t->rows[r][c] && strlen(t->rows[r][c]) > width[c])
                width[c] = strlen(t->rows[r][c]);
    }
    for (int r = -1; r < t->count; r++) {
        for (int c = 0; c < t->cols; c++) {
            const char *cell = r < 0 ? t->headers[c] : t->rows[r][c];
            if (c == t->cols - 1)
                fprintf(out, "%s\n", cell ? cell : "");
            else
                fprintf(out, "%-*s  ", (int)width[c], cell ? cell : "");
        }
    }
    for (int r = 0; r < t->count; r++) {
        for (int c = 0; c < t->cols; c++)
            free(t->rows[r][c]);
        free(t->rows[r]);
    }
    free(t->rows);
    memset(t, 0, sizeof *t);
}

void gr_json_strn(FILE *out, const char *s, int32_t len)
{
    if (!s || len < 0) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (int32_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

void gr_json_str(FILE *out, const char *s)
{
    gr_json_strn(out, s, s ? (int32_t)strlen(s) : -1);
}

char *gr_admin_text(gr_admin_t *a, gr_str_t s)
{
    char *c = gr_arena_strndup(&a->arena, s.len > 0 ? s.ptr : "", (size_t)(s.len > 0 ? s.len : 0));
    return c ? c : (char *)"";
}

void gr_admin_report(const char *what, int16_t code, gr_str_t message)
{
    fprintf(stderr, "error: %s: %s", what, gr_kerr_name(code));
    if (message.len > 0)
        fprintf(stderr, " (%.*s)", message.len, message.ptr);
    fputc('\n', stderr);
}
