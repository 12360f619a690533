/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ssl.principal.mapping.rules: from a client certificate's subject DN to the
 * name in the principal "User:<name>", with Kafka's rule syntax:
 *
 *   RULE:<pattern>/<replacement>/[L|U], ..., DEFAULT
 *
 * Rules are tried in order. A RULE applies when its pattern (POSIX extended
 * regex, '/' written as "\/") matches the whole DN; the name is then the
 * replacement with $0..$9 replaced by the groups, lower- (L) or upper-cased
 * (U) when asked. DEFAULT applies always and keeps the DN as is. When no rule
 * applies the client gets no principal (Kafka fails its authentication).
 *
 * Difference from Kafka (java.util.regex): POSIX regexes have no lazy
 * quantifiers; "(.*?)" is accepted but greedy.
 *
 * Immutable once parsed; any thread.
 */
#ifndef GR_SECURITY_PRINCIPAL_RULES_H
#define GR_SECURITY_PRINCIPAL_RULES_H

#include <stddef.h>

typedef struct gr_principal_rules gr_principal_rules_t;

/*
 * Parses the rules text (NULL or "" mean DEFAULT). Returns 0 and *out (free
 * with gr_principal_rules_free), -EINVAL with err naming the bad rule, or
 * -ENOMEM.
 */
int gr_principal_rules_parse(const char *text, gr_principal_rules_t **out /* out */, char *err,
                             size_t errlen);

void gr_principal_rules_free(gr_principal_rules_t *rules);

/*
 * Maps dn to the principal's name in out (size bytes). rules NULL means
 * DEFAULT. Returns 0, -ENOENT (no rule applies) or -ENAMETOOLONG.
 */
int gr_principal_rules_apply(const gr_principal_rules_t *rules, const char *dn, char *out,
                             size_t size);

#endif
