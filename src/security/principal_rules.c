/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ssl.principal.mapping.rules: see principal_rules.h.
 *
 * Parsing walks the text once: between rules only commas and blanks; a RULE
 * reads its pattern and replacement up to unescaped slashes (so patterns may
 * hold commas, as DNs do), then an optional L or U.
 */
#include "security/principal_rules.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULE_PREFIX  "RULE:"
#define DEFAULT_RULE "DEFAULT"
#define MAX_GROUPS   10 /* $0..$9 */

typedef struct gr_principal_rule {
    bool is_default;
    regex_t pattern;
    char *replacement;
    char case_fold; /* 'L', 'U' or 0 */
} gr_principal_rule_t;

struct gr_principal_rules {
    gr_principal_rule_t *items;
    size_t count;
};

/* Copies up to the next unescaped '/', turning "\/" into "/". NULL if unterminated. */
static char *read_part(const char **p)
{
    const char *s = *p;
    char *out = malloc(strlen(s) + 1);
    size_t n = 0;
    if (!out)
        return NULL;
    for (; *s && *s != '/'; s++) {
        if (s[0] == '\\' && s[1] == '/')
            s++;
        out[n++] = *s;
    }
    if (*s != '/') {
        free(out);
        return NULL;
    }
    out[n] = '\0';
    *p = s + 1;
    return out;
}

/* Parses one "RULE:..." at *p into r. */
static int parse_rule(const char **p, gr_principal_rule_t *r, char *err, size_t errlen)
{
    const char *start = *p;
    *p += strlen(RULE_PREFIX);
    char *pattern = read_part(p);
    char *replacement = pattern ? read_part(p) : NULL;
    if (!replacement) {
        free(pattern);
        snprintf(err, errlen,
                 "ssl.principal.mapping.rules: '%.80s' is not RULE:pattern/replacement/", start);
        return -EINVAL;
    }
    if (**p == 'L' || **p == 'U')
        r->case_fold = *(*p)++;
    int rc = regcomp(&r->pattern, pattern, REG_EXTENDED);
    if (rc != 0) {
        char why[128];
        regerror(rc, &r->pattern, why, sizeof why);
        snprintf(err, errlen, "ssl.principal.mapping.rules: bad pattern '%s': %s", pattern, why);
        free(pattern);
        free(replacement);
        return -EINVAL;
    }
    free(pattern);
    r->replacement = replacement;
    return 0;
}

int gr_principal_rules_parse(const char *text, gr_principal_rules_t **out, char *err, size_t errlen)
{
    gr_principal_rules_t *rules = calloc(1, sizeof(*rules));
    if (!rules)
        return -ENOMEM;
    const char *p = text ? text : "";
    for (;;) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        gr_principal_rule_t *items =
            realloc(rules->items, (rules->count + 1) * sizeof(*rules->items));
        if (!items) {
            gr_principal_rules_free(rules);
            return -ENOMEM;
        }
        rules->items = items;
        gr_principal_rule_t *r = &items[rules->count];
        memset(r, 0, sizeof(*r));
        int rc = 0;
        if (strncmp(p, DEFAULT_RULE, strlen(DEFAULT_RULE)) == 0) {
            r->is_default = true;
            p += strlen(DEFAULT_RULE);
        } else if (strncmp(p, RULE_PREFIX, strlen(RULE_PREFIX)) == 0) {
            rc = parse_rule(&p, r, err, errlen);
        } else {
            snprintf(err, errlen,
                     "ssl.principal.mapping.rules: expected RULE: or DEFAULT at '%.80s'", p);
            rc = -EINVAL;
        }
        if (rc == 0 && *p && *p != ',' && !isspace((unsigned char)*p)) {
            snprintf(err, errlen, "ssl.principal.mapping.rules: unexpected '%.80s' after a rule",
                     p);
            if (!r->is_default) {
                regfree(&r->pattern);
                free(r->replacement);
            }
            rc = -EINVAL;
        }
        if (rc < 0) {
            gr_principal_rules_free(rules);
            return rc;
        }
        rules->count++;
    }
    *out = rules;
    return 0;
}

void gr_principal_rules_free(gr_principal_rules_t *rules)
{
    if (!rules)
        return;
    for (size_t i = 0; i < rules->count; i++) {
        if (rules->items[i].is_default)
            continue;
        regfree(&rules->items[i].pattern);
        free(rules->items[i].replacement);
    }
    free(rules->items);
    free(rules);
}

/* Expands replacement's $N from the match; applies the case. */
static int expand(const gr_principal_rule_t *r, const char *dn, const regmatch_t *m, char *out,
                  size_t size)
{
    size_t n = 0;
    for (const char *s = r->replacement; *s; s++) {
        const char *from = s;
        size_t len = 1;
        if (s[0] == '$' && isdigit((unsigned char)s[1])) {
            const regmatch_t *g = &m[s[1] - '0'];
            from = g->rm_so >= 0 ? dn + g->rm_so : "";
            len = g->rm_so >= 0 ? (size_t)(g->rm_eo - g->rm_so) : 0;
            s++;
        }
        if (n + len >= size)
            return -ENAMETOOLONG;
        memcpy(out + n, from, len);
        n += len;
    }
    out[n] = '\0';
    for (size_t i = 0; i < n && r->case_fold; i++)
        out[i] = (char)(r->case_fold == 'L' ? tolower((unsigned char)out[i])
                                            : toupper((unsigned char)out[i]));
    return 0;
}

int gr_principal_rules_apply(const gr_principal_rules_t *rules, const char *dn, char *out,
                             size_t size)
{
    size_t dn_len = strlen(dn);
    size_t count = rules ? rules->count : 0;
    if (count == 0) /* no rules: DEFAULT */
        return snprintf(out, size, "%s", dn) < (int)size ? 0 : -ENAMETOOLONG;
    for (size_t i = 0; i < count; i++) {
        const gr_principal_rule_t *r = &rules->items[i];
        if (r->is_default)
            return snprintf(out, size, "%s", dn) < (int)size ? 0 : -ENAMETOOLONG;
        regmatch_t m[MAX_GROUPS];
        /* Kafka's rules match the whole DN, not a part of it. */
        if (regexec(&r->pattern, dn, MAX_GROUPS, m, 0) != 0 || m[0].rm_so != 0 ||
            (size_t)m[0].rm_eo != dn_len)
            continue;
        return expand(r, dn, m, out, size);
    }
    return -ENOENT;
}
