/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SASL PLAIN's server side (RFC 4616) against a PlainLoginModule JAAS
 * entry's user_<name>="password" options, as Kafka's PlainServerCallbackHandler
 * reads them. Runs on: loop thread.
 */
#include <stdio.h>
#include <string.h>

#include "security/scram_crypto.h"
#include "security/sasl_server.h"

#define PLAIN_USER_OPTION_PREFIX "user_"

/* Compares in constant time over the expected password's length. */
static bool password_matches(const char *expected, const uint8_t *given, size_t given_len)
{
    size_t n = strlen(expected);
    /* Different lengths still cost a full compare, of expected against itself. */
    const void *other = given_len == n ? (const void *)given : (const void *)expected;
    bool same = gr_scram_equal(expected, other, n);
    return same && given_len == n;
}

gr_kerr_t gr_sasl_plain_check(const gr_jaas_t *jaas, const uint8_t *in, size_t len, char *user,
                              size_t user_size)
{
    user[0] = '\0';
    const uint8_t *nul1 = memchr(in, '\0', len);
    const uint8_t *nul2 = nul1 ? memchr(nul1 + 1, '\0', len - (size_t)(nul1 + 1 - in)) : NULL;
    if (!nul2)
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    size_t authz_len = (size_t)(nul1 - in), user_len = (size_t)(nul2 - nul1 - 1);
    const uint8_t *password = nul2 + 1;
    size_t password_len = len - (size_t)(password - in);
    if (user_len == 0 || user_len >= user_size || memchr(password, '\0', password_len))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    memcpy(user, nul1 + 1, user_len);
    user[user_len] = '\0';
    /* Kafka: an authorization id other than the user is refused. */
    if (authz_len && (authz_len != user_len || memcmp(in, user, user_len) != 0))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    char option[GR_SASL_USER_MAX + sizeof PLAIN_USER_OPTION_PREFIX];
    snprintf(option, sizeof option, PLAIN_USER_OPTION_PREFIX "%s", user);
    const char *expected = gr_jaas_find(jaas, option);
    if (!expected || !password_matches(expected, password, password_len))
        return GR_KERR_SASL_AUTHENTICATION_FAILED;
    return GR_KERR_NONE;
}
