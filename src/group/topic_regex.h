/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Subscription regular expressions of KIP-848 consumer groups
 * (ConsumerGroupHeartbeat's SubscribedTopicRegex).
 *
 * Kafka compiles them with RE2/J and keeps a topic when the whole name
 * matches. Gregor matches with PCRE2, so a pattern is first checked against
 * RE2's syntax: what RE2 refuses and PCRE2 would take (backreferences,
 * lookaround, atomic groups, possessive quantifiers, recursion,
 * conditionals, callouts, \C, verbs...) is refused here too, and a client
 * gets INVALID_REGULAR_EXPRESSION for the same patterns as from Kafka.
 * Matching is bounded by a PCRE2 match limit.
 *
 * A compiled regex owns its match buffer, so one handle is used by one
 * thread at a time. Runs on: any thread (the coordinator's loop thread).
 */
#ifndef GR_GROUP_TOPIC_REGEX_H
#define GR_GROUP_TOPIC_REGEX_H

#include <stddef.h>

/* Room for a compile error message, NUL included. */
#define GR_TOPIC_REGEX_ERROR_MAX 256

typedef struct gr_topic_regex gr_topic_regex_t;

/*
 * Compiles pattern (len bytes, need not be NUL-terminated; UTF-8).
 * Returns 0 with *out set (free it with gr_topic_regex_free), -EINVAL when
 * the pattern is not valid RE2 (err, if not NULL, gets a one-line reason
 * fit for INVALID_REGULAR_EXPRESSION's error message), or -ENOMEM.
 */
int gr_topic_regex_compile(const char *pattern, size_t len, gr_topic_regex_t **out, char *err,
                           size_t err_cap);

/*
 * Whether the whole of topic (len bytes) matches, as Java's
 * Matcher.matches(). Returns 1 for a match, 0 for none, or a negative
 * errno when the match could not be decided: -E2BIG when the match limit
 * was reached, -EILSEQ for a name that is not UTF-8. Callers treat those as
 * no match.
 */
int gr_topic_regex_match(gr_topic_regex_t *re, const char *topic, size_t len);

/* Frees a compiled regex; NULL is a no-op. */
void gr_topic_regex_free(gr_topic_regex_t *re);

#endif
