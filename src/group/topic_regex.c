/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Subscription regexes: an RE2 syntax check, then PCRE2.
 *
 * The check walks the pattern once, token by token, outside and inside
 * character classes, and refuses PCRE2 syntax that RE2 has no meaning for:
 *   - escapes other than RE2's (\1-\9 and \g \k backreferences, \C, \K,
 *     \R \X \h \H \G \Z \N \e \c \o \E ...); punctuation escapes are fine;
 *   - groups other than (...), (?:...), (?P<n>...), (?<n>...) and flag
 *     groups over i m s U: lookaround (?= (?! (?<= (?<!, atomic (?>, branch
 *     reset (?|, comments (?#, recursion and subroutines (?R) (?1) (?&n)
 *     (?P>n), (?P=n), conditionals (?(, callouts (?C, other flags, and
 *     PCRE2's (*VERB) openings;
 *   - a quantifier right after another one (other than the lazy `?`), which
 *     covers possessive quantifiers *+ ++ ?+ {n}+, and counts above RE2's
 *     1000.
 * What both accept means the same for a topic name (Kafka's legal names
 * hold no newline, so `$` and \v differ only in cases that cannot occur).
 * Syntax both refuse is left to PCRE2's own error.
 *
 * Patterns compile anchored at both ends (Java's Matcher.matches()), with
 * UTF-8, and are JIT-compiled when PCRE2 has a JIT for this CPU; the match
 * context bounds the backtracking of every match.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "group/topic_regex.h"

#include <errno.h>
#include <pcre2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Backtracking steps one match may take, and its heap in KiB. */
#define GR_TOPIC_REGEX_MATCH_LIMIT 100000
#define GR_TOPIC_REGEX_HEAP_LIMIT  1024
/* RE2's largest {n,m} count. */
#define GR_RE2_MAX_REPEAT 1000

struct gr_topic_regex {
    pcre2_code *code;
    pcre2_match_data *match;
    pcre2_match_context *context;
};

typedef struct scan {
    const char *p;
    size_t n;
    size_t i;
    bool quantified;    /* the last token was a quantifier */
    size_t quant_start; /* where it started */
    char *err;
    size_t err_cap;
} scan_t;

/* Records why the pattern is refused, quoting len bytes at from. */
static int refuse(scan_t *s, const char *why, size_t from, size_t len)
{
    if (from + len > s->n)
        len = s->n - from;
    if (s->err && s->err_cap)
        snprintf(s->err, s->err_cap, "%s: `%.*s`", why, (int)len, s->p + from);
    return -EINVAL;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_alnum(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Skips a {...} body starting at s->i (on the '{'); refuses an open one. */
static int skip_braces(scan_t *s, size_t esc_start)
{
    const char *close = memchr(s->p + s->i, '}', s->n - s->i);
    if (!close)
        return refuse(s, "invalid escape sequence", esc_start, s->n - esc_start);
    s->i = (size_t)(close - s->p) + 1;
    return 0;
}

/*
 * One escape at s->i (on the backslash). RE2 knows octal \0, \xhh and
 * \x{h...}, \a \f \t \n \r \v, the classes \d \s \w (and negations),
 * \p and \P, quoting \Q...\E, outside a class the assertions \b \B \A \z,
 * and any ASCII punctuation escaped.
 */
static int scan_escape(scan_t *s, bool in_class)
{
    size_t start = s->i;
    if (start + 1 >= s->n)
        return refuse(s, "trailing backslash at end of expression", start, 1);
    char c = s->p[start + 1];
    s->i = start + 2;
    if (!is_alnum(c))
        return (unsigned char)c < 0x80 ? 0 : refuse(s, "invalid escape sequence", start, 2);
    if (strchr("0afntrvdDsSwW", c))
        return 0;
    if (!in_class && strchr("bBAz", c))
        return 0;
    if (c == 'x') {
        if (s->i < s->n && s->p[s->i] == '{')
            return skip_braces(s, start);
        if (s->i + 1 < s->n && is_hex(s->p[s->i]) && is_hex(s->p[s->i + 1])) {
            s->i += 2;
            return 0;
        }
        return refuse(s, "invalid escape sequence", start, 4);
    }
    if (c == 'p' || c == 'P') {
        if (s->i < s->n && s->p[s->i] == '{')
            return skip_braces(s, start);
        if (s->i < s->n && is_alnum(s->p[s->i])) {
            s->i++;
            return 0;
        }
        return refuse(s, "invalid character class range", start, 3);
    }
    if (c == 'Q' && !in_class) {
        /* Literal text up to \E or the end, as both engines read it. */
        for (; s->i < s->n; s->i++) {
            if (s->p[s->i] == '\\' && s->i + 1 < s->n && s->p[s->i + 1] == 'E') {
                s->i += 2;
                break;
            }
        }
        return 0;
    }
    return refuse(s, "invalid escape sequence", start, 2);
}

/* A character class at s->i (on the '['), up to its closing ']'. */
static int scan_class(scan_t *s)
{
    size_t start = s->i++;
    if (s->i < s->n && s->p[s->i] == '^')
        s->i++;
    if (s->i < s->n && s->p[s->i] == ']')
        s->i++; /* a leading ']' is a literal */
    while (s->i < s->n) {
        char c = s->p[s->i];
        if (c == ']') {
            s->i++;
            return 0;
        }
        if (c == '\\') {
            int rc = scan_escape(s, true);
            if (rc < 0)
                return rc;
            continue;
        }
        if (c == '[' && s->i + 1 < s->n && s->p[s->i + 1] == ':') {
            /* [:alpha:], which both engines know */
            size_t end = s->i + 2;
            while (end + 1 < s->n && !(s->p[end] == ':' && s->p[end + 1] == ']'))
                end++;
            if (end + 1 < s->n) {
                s->i = end + 2;
                continue;
            }
        }
        s->i++;
    }
    return refuse(s, "missing closing ]", start, s->n - start);
}

/* Flags of (?flags) or (?flags:...) from s->i (after "(?"): RE2's i m s U. */
static int scan_flags(scan_t *s, size_t start)
{
    bool negated = false, letter_after_dash = false, any = false;
    for (; s->i < s->n; s->i++) {
        char c = s->p[s->i];
        if (c == ')' || c == ':') {
            if (!any || (negated && !letter_after_dash))
                break;
            s->i++;
            return 0;
        }
        if (c == '-' && !negated) {
            negated = true;
            continue;
        }
        if (!strchr("imsU", c))
            break;
        any = true;
        letter_after_dash = negated;
    }
    return refuse(s, "invalid or unsupported Perl syntax", start, s->i - start + 1);
}

/* Skips a group name up to '>' (PCRE2 checks the name itself). */
static int scan_name(scan_t *s, size_t start)
{
    const char *close = memchr(s->p + s->i, '>', s->n - s->i);
    if (!close)
        return refuse(s, "invalid named capture group", start, s->n - start);
    s->i = (size_t)(close - s->p) + 1;
    return 0;
}

/* A group opening at s->i (on the '('). */
static int scan_group(scan_t *s)
{
    size_t start = s->i++;
    if (s->i >= s->n || (s->p[s->i] != '?' && s->p[s->i] != '*'))
        return 0;
    if (s->p[s->i] == '*')
        return refuse(s, "missing argument to repetition operator", start, 2);
    s->i++; /* '?' */
    char c = s->i < s->n ? s->p[s->i] : '\0';
    char next = s->i + 1 < s->n ? s->p[s->i + 1] : '\0';
    if (c == ':') {
        s->i++;
        return 0;
    }
    if (c == 'P' && next == '<') {
        s->i += 2;
        return scan_name(s, start);
    }
    if (c == '<' && next != '=' && next != '!') {
        s->i++;
        return scan_name(s, start);
    }
    if (strchr("imsU-", c) && c != '\0')
        return scan_flags(s, start);
    return refuse(s, "invalid or unsupported Perl syntax", start, 3 + (c == '<' || c == 'P'));
}

/* {n}, {n,} or {n,m} at s->i; returns its length, or 0 when '{' is a literal. */
static size_t counted_length(const scan_t *s, long *max_count)
{
    size_t j = s->i + 1;
    long count = 0, largest = 0;
    bool digits = false;
    for (; j < s->n && is_digit(s->p[j]); j++, digits = true)
        count = count > GR_RE2_MAX_REPEAT ? count : count * 10 + (s->p[j] - '0');
    if (!digits)
        return 0;
    largest = count;
    if (j < s->n && s->p[j] == ',') {
        count = 0;
        for (j++; j < s->n && is_digit(s->p[j]); j++)
            count = count > GR_RE2_MAX_REPEAT ? count : count * 10 + (s->p[j] - '0');
        largest = count > largest ? count : largest;
    }
    if (j >= s->n || s->p[j] != '}')
        return 0;
    *max_count = largest;
    return j - s->i + 1;
}

/* A quantifier at s->i, or a literal '{'; one right after another is refused. */
static int scan_quantifier(scan_t *s)
{
    size_t start = s->i;
    size_t len = 1;
    if (s->p[start] == '{') {
        long largest = 0;
        len = counted_length(s, &largest);
        if (len == 0) {
            s->i++;
            s->quantified = false;
            return 0;
        }
        if (largest > GR_RE2_MAX_REPEAT)
            return refuse(s, "bad repetition operator", start, len);
    }
    if (s->quantified)
        return refuse(s, "bad repetition operator", s->quant_start, start + len - s->quant_start);
    s->quant_start = start;
    s->i += len;
    if (s->i < s->n && s->p[s->i] == '?')
        s->i++; /* lazy */
    s->quantified = true;
    return 0;
}

/* Returns 0 when RE2 would accept what PCRE2 will be given, else -EINVAL. */
static int check_re2_syntax(scan_t *s)
{
    while (s->i < s->n) {
        char c = s->p[s->i];
        int rc = 0;
        if (c == '*' || c == '+' || c == '?' || c == '{') {
            rc = scan_quantifier(s);
        } else {
            s->quantified = false;
            if (c == '\\')
                rc = scan_escape(s, false);
            else if (c == '[')
                rc = scan_class(s);
            else if (c == '(')
                rc = scan_group(s);
            else
                s->i++;
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int compile_pcre2(gr_topic_regex_t *re, const char *pattern, size_t len, char *err,
                         size_t err_cap)
{
    int code = 0;
    PCRE2_SIZE offset = 0;
    re->code = pcre2_compile((PCRE2_SPTR)pattern, len,
                             PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_DOLLAR_ENDONLY |
                                 PCRE2_NEVER_BACKSLASH_C,
                             &code, &offset, NULL);
    if (!re->code) {
        if (code == PCRE2_ERROR_NOMEMORY)
            return -ENOMEM;
        if (err && err_cap) {
            PCRE2_UCHAR text[GR_TOPIC_REGEX_ERROR_MAX];
            if (pcre2_get_error_message(code, text, sizeof text) < 0)
                snprintf((char *)text, sizeof text, "error %d", code);
            snprintf(err, err_cap, "%s at offset %zu", (const char *)text, (size_t)offset);
        }
        return -EINVAL;
    }
    /* No JIT for this CPU or build: the interpreter matches the same. */
    (void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
    re->match = pcre2_match_data_create(1, NULL);
    re->context = pcre2_match_context_create(NULL);
    if (!re->match || !re->context)
        return -ENOMEM;
    pcre2_set_match_limit(re->context, GR_TOPIC_REGEX_MATCH_LIMIT);
    pcre2_set_heap_limit(re->context, GR_TOPIC_REGEX_HEAP_LIMIT);
    return 0;
}

int gr_topic_regex_compile(const char *pattern, size_t len, gr_topic_regex_t **out, char *err,
                           size_t err_cap)
{
    *out = NULL;
    if (err && err_cap)
        err[0] = '\0';
    scan_t s = {.p = pattern, .n = len, .err = err, .err_cap = err_cap};
    int rc = check_re2_syntax(&s);
    if (rc < 0)
        return rc;
    gr_topic_regex_t *re = calloc(1, sizeof(*re));
    if (!re)
        return -ENOMEM;
    rc = compile_pcre2(re, pattern, len, err, err_cap);
    if (rc < 0) {
        gr_topic_regex_free(re);
        return rc;
    }
    *out = re;
    return 0;
}

int gr_topic_regex_match(gr_topic_regex_t *re, const char *topic, size_t len)
{
    int rc = pcre2_match(re->code, (PCRE2_SPTR)topic, len, 0, 0, re->match, re->context);
    if (rc >= 0)
        return 1;
    switch (rc) {
    case PCRE2_ERROR_NOMATCH:
        return 0;
    case PCRE2_ERROR_MATCHLIMIT:
    case PCRE2_ERROR_DEPTHLIMIT:
    case PCRE2_ERROR_HEAPLIMIT:
    case PCRE2_ERROR_JIT_STACKLIMIT:
        return -E2BIG;
    case PCRE2_ERROR_NOMEMORY:
        return -ENOMEM;
    default:
        /* PCRE2's UTF-8 errors are -3 down to -23 */
        return rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21 ? -EILSEQ : -EINVAL;
    }
}

void gr_topic_regex_free(gr_topic_regex_t *re)
{
    if (!re)
        return;
    pcre2_match_context_free(re->context);
    pcre2_match_data_free(re->match);
    pcre2_code_free(re->code);
    free(re);
}
