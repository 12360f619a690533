/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JAAS entry parsing: see jaas.h. A small scanner over the text: words end
 * at blanks, '=' or ';'; quoted values keep everything up to the closing
 * quote. Runs on: any thread.
 */
#include "security/jaas.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

typedef struct scanner {
    const char *p;
    char *err;
    size_t errlen;
} scanner_t;

static void skip_blanks(scanner_t *s)
{
    while (isspace((unsigned char)*s->p))
        s->p++;
}

static bool is_word_char(char c)
{
    return c && !isspace((unsigned char)c) && c != '=' && c != ';' && c != '"';
}

/* A bare word, or NULL (none here, or out of memory: *oom tells). */
static char *scan_word(scanner_t *s, bool *oom)
{
    skip_blanks(s);
    const char *start = s->p;
    while (is_word_char(*s->p))
        s->p++;
    if (s->p == start)
        return NULL;
    char *w = strndup(start, (size_t)(s->p - start));
    *oom = w == NULL;
    return w;
}

/* A "quoted" value with backslash escapes; s->p is on the opening quote. */
static int scan_quoted(scanner_t *s, char **out)
{
    size_t cap = strlen(s->p) + 1, n = 0;
    char *v = malloc(cap);
    if (!v)
        return -ENOMEM;
    for (s->p++; *s->p && *s->p != '"'; s->p++) {
        if (*s->p == '\\' && s->p[1])
            s->p++;
        v[n++] = *s->p;
    }
    if (*s->p != '"') {
        free(v);
        snprintf(s->err, s->errlen, "JAAS configuration: unterminated quoted value");
        return -EINVAL;
    }
    s->p++;
    v[n] = '\0';
    *out = v;
    return 0;
}

static int add_option(gr_jaas_t *j, char *name, char *value)
{
    gr_jaas_option_t *o = realloc(j->options, (j->count + 1) * sizeof *o);
    if (!o) {
        free(name);
        free(value);
        return -ENOMEM;
    }
    j->options = o;
    o[j->count++] = (gr_jaas_option_t){name, value};
    return 0;
}

/* name=value; s->p is at the name. */
static int scan_option(scanner_t *s, gr_jaas_t *j)
{
    bool oom = false;
    char *name = scan_word(s, &oom);
    if (!name) {
        if (!oom)
            snprintf(s->err, s->errlen, "JAAS configuration: expected an option name or ';'");
        return oom ? -ENOMEM : -EINVAL;
    }
    skip_blanks(s);
    if (*s->p != '=') {
        snprintf(s->err, s->errlen, "JAAS configuration: option %s has no '=value'", name);
        free(name);
        return -EINVAL;
    }
    s->p++;
    skip_blanks(s);
    char *value = NULL;
    int rc = 0;
    if (*s->p == '"')
        rc = scan_quoted(s, &value);
    else if (!(value = scan_word(s, &oom)))
        rc = oom ? -ENOMEM : -EINVAL;
    if (rc) {
        if (rc == -EINVAL && !value && *s->err == '\0')
            snprintf(s->err, s->errlen, "JAAS configuration: option %s has no value", name);
        free(name);
        return rc;
    }
    return add_option(j, name, value);
}

int gr_jaas_parse(const char *text, gr_jaas_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    scanner_t s = {text ? text : "", err, errlen};
    if (errlen)
        err[0] = '\0';
    bool oom = false;
    out->module = scan_word(&s, &oom);
    out->flag = out->module ? scan_word(&s, &oom) : NULL;
    if (oom)
        return -ENOMEM;
    if (!out->flag) {
        snprintf(err, errlen, "JAAS configuration: expected 'LoginModule flag option=value ...;'");
        return -EINVAL;
    }
    for (;;) {
        skip_blanks(&s);
        if (*s.p == ';')
            break;
        if (*s.p == '\0') {
            snprintf(err, errlen, "JAAS configuration: missing ';' at the end");
            return -EINVAL;
        }
        int rc = scan_option(&s, out);
        if (rc)
            return rc;
    }
    s.p++;
    skip_blanks(&s);
    if (*s.p) {
        snprintf(err, errlen, "JAAS configuration: only one login module is allowed");
        return -EINVAL;
    }
    return 0;
}

void gr_jaas_fini(gr_jaas_t *j)
{
    for (size_t i = 0; i < j->count; i++) {
        free(j->options[i].name);
        /* Option values are passwords (password=, user_<name>=). */
        OPENSSL_cleanse(j->options[i].value, strlen(j->options[i].value));
        free(j->options[i].value);
    }
    free(j->options);
    free(j->module);
    free(j->flag);
    memset(j, 0, sizeof *j);
}

const char *gr_jaas_find(const gr_jaas_t *j, const char *name)
{
    for (size_t i = 0; i < j->count; i++)
        if (strcmp(j->options[i].name, name) == 0)
            return j->options[i].value;
    return NULL;
}
