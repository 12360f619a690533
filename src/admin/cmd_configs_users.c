/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gregor-admin configs for --entity-type users: SCRAM credentials, as
 * kafka-configs.sh writes them.
 *   alter --add-config 'SCRAM-SHA-256=[iterations=4096,password=P],SCRAM-SHA-512=[password=P]'
 *   alter --delete-config 'SCRAM-SHA-256,SCRAM-SHA-512'
 *   describe [--entity-name N]
 * The password never leaves this process: the salt is random (RAND_bytes),
 * the salted password is PBKDF2's (security/scram_crypto.h), and
 * AlterUserScramCredentials carries those two, as Kafka's admin client does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "admin/admin.h"
#include "admin/common.h"
#include "gen/alter_user_scram_credentials.h"
#include "gen/describe_user_scram_credentials.h"
#include "security/scram_crypto.h"

#define ALTERATIONS_MAX    8
#define SALT_BYTES         32 /* Kafka's ScramFormatter uses 32 random bytes too */
#define PASSWORD_MAX       256
#define DEFAULT_ITERATIONS GR_SCRAM_MIN_ITERATIONS

typedef gr_alter_user_scram_credentials_request_scram_credential_upsertion_t upsertion_t;
typedef gr_alter_user_scram_credentials_request_scram_credential_deletion_t deletion_t;

/* Buffers behind one upsertion's salt and salted password. */
typedef struct upsert_buf {
    uint8_t salt[SALT_BYTES];
    uint8_t salted[GR_SCRAM_HASH_MAX];
} upsert_buf_t;

/* Reads "iterations=N,password=P" (the text inside [...]). 0 or -1 (message printed). */
static int parse_params(const char *text, size_t len, int32_t *iterations, char *password)
{
    char buf[PASSWORD_MAX * 2];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    *iterations = DEFAULT_ITERATIONS;
    password[0] = '\0';
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strncmp(t, "iterations=", 11) == 0)
            *iterations = (int32_t)atoi(t + 11);
        else if (strncmp(t, "password=", 9) == 0 && strlen(t + 9) < PASSWORD_MAX)
            snprintf(password, PASSWORD_MAX, "%s", t + 9);
        else {
            fprintf(stderr, "error: unknown SCRAM parameter in '%s'\n", t);
            return -1;
        }
    }
    OPENSSL_cleanse(buf, sizeof buf);
    if (!password[0]) {
        fprintf(stderr, "error: a SCRAM credential needs password=...\n");
        return -1;
    }
    return 0;
}

/* One "MECH=[...]" of --add-config at *p; advances *p past it and a comma. */
static int parse_upsertion(const char **p, const char *user, upsertion_t *u, upsert_buf_t *buf)
{
    const char *eq = strchr(*p, '='), *open = eq ? eq + 1 : NULL;
    const char *close = open && *open == '[' ? strchr(open, ']') : NULL;
    char mech[GR_SASL_NAME_MAX];
    if (!close || (size_t)(eq - *p) >= sizeof mech) {
        fprintf(stderr, "error: --add-config wants MECHANISM=[iterations=N,password=P]\n");
        return -1;
    }
    snprintf(mech, sizeof mech, "%.*s", (int)(eq - *p), *p);
    int m = gr_sasl_mechanism_find(mech);
    char password[PASSWORD_MAX];
    if (m < 0 || !gr_sasl_mechanism_is_scram(m)) {
        fprintf(stderr, "error: %s is not a SCRAM mechanism\n", mech);
        return -1;
    }
    gr_alter_user_scram_credentials_request_scram_credential_upsertion_init(u);
    if (parse_params(open + 1, (size_t)(close - open - 1), &u->iterations, password))
        return -1;
    int rc = RAND_bytes(buf->salt, SALT_BYTES) == 1
                 ? gr_scram_salted_password(m, password, buf->salt, SALT_BYTES, u->iterations,
                                            buf->salted)
                 : -1;
    OPENSSL_cleanse(password, sizeof password);
    if (rc) {
        fprintf(stderr, "error: cannot compute the salted password\n");
        return -1;
    }
    u->name = gr_str(user);
    u->mechanism = (int8_t)m;
    u->salt = (gr_bytes_t){buf->salt, SALT_BYTES};
    u->salted_password = (gr_bytes_t){buf->salted, (int32_t)gr_scram_hash_len(m)};
    *p = close[1] == ',' ? close + 2 : close + 1;
    return 0;
}

/* --delete-config "SCRAM-SHA-256,SCRAM-SHA-512". */
static int parse_deletions(const char *spec, const char *user, deletion_t *d, int *n)
{
    char buf[GR_SASL_NAME_MAX * ALTERATIONS_MAX];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int m = gr_sasl_mechanism_find(t);
        if (m < 0 || !gr_sasl_mechanism_is_scram(m) || *n >= ALTERATIONS_MAX) {
            fprintf(stderr, "error: %s is not a SCRAM mechanism\n", t);
            return -1;
        }
        gr_alter_user_scram_credentials_request_scram_credential_deletion_init(&d[*n]);
        d[*n].name = gr_str(user);
        d[(*n)++].mechanism = (int8_t)m;
    }
    return 0;
}

static int print_alter_results(gr_admin_t *a, const gr_alter_user_scram_credentials_response_t *r)
{
    int rc = GR_ADMIN_EXIT_OK;
    for (int32_t i = 0; i < r->results_count; i++) {
        const char *user = gr_admin_text(a, r->results[i].user);
        if (r->results[i].error_code) {
            gr_admin_report(user, r->results[i].error_code, r->results[i].error_message);
            rc = GR_ADMIN_EXIT_FAILED;
        } else {
            printf("Completed updating config for user %s.\n", user);
        }
    }
    return rc;
}

static int users_alter(gr_admin_t *a, const char *user)
{
    upsertion_t ups[ALTERATIONS_MAX];
    upsert_buf_t bufs[ALTERATIONS_MAX];
    deletion_t dels[ALTERATIONS_MAX];
    int nu = 0, nd = 0;
    const char *add = gr_admin_opt(a->opts, "add-config");
    const char *del = gr_admin_opt(a->opts, "delete-config");
    for (const char *p = add; p && *p && nu < ALTERATIONS_MAX; nu++)
        if (parse_upsertion(&p, user, &ups[nu], &bufs[nu]))
            return GR_ADMIN_EXIT_USAGE;
    if ((!add && !del) || (del && parse_deletions(del, user, dels, &nd))) {
        fprintf(stderr, "error: give --add-config MECH=[...] and/or --delete-config MECH\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    gr_alter_user_scram_credentials_request_t req;
    gr_alter_user_scram_credentials_request_init(&req);
    req.upsertions = ups;
    req.upsertions_count = nu;
    req.deletions = dels;
    req.deletions_count = nd;
    gr_alter_user_scram_credentials_response_t resp;
    int rc = gr_admin_call(a, GR_API_ALTER_USER_SCRAM_CREDENTIALS, 0, &req, &resp);
    OPENSSL_cleanse(bufs, sizeof bufs);
    return rc ? GR_ADMIN_EXIT_TRANSPORT : print_alter_results(a, &resp);
}

static int users_describe(gr_admin_t *a, const char *user)
{
    gr_describe_user_scram_credentials_request_t req;
    gr_describe_user_scram_credentials_request_init(&req);
    gr_describe_user_scram_credentials_request_user_name_t name = {gr_str(user)};
    req.users = user ? &name : NULL;
    req.users_count = user ? 1 : 0;
    req.users_null = !user;
    gr_describe_user_scram_credentials_response_t resp;
    if (gr_admin_call(a, GR_API_DESCRIBE_USER_SCRAM_CREDENTIALS, 0, &req, &resp))
        return GR_ADMIN_EXIT_TRANSPORT;
    int rc = GR_ADMIN_EXIT_OK;
    for (int32_t i = 0; i < resp.results_count; i++) {
        const gr_describe_user_scram_credentials_response_describe_user_scram_credentials_result_t
            *r = &resp.results[i];
        const char *u = gr_admin_text(a, r->user);
        if (r->error_code) {
            gr_admin_report(u, r->error_code, r->error_message);
            rc = GR_ADMIN_EXIT_FAILED;
            continue;
        }
        printf("SCRAM credential configs for user-principal '%s' are ", u);
        for (int32_t k = 0; k < r->credential_infos_count; k++)
            printf("%s%s=iterations=%d", k ? ", " : "",
                   gr_sasl_mechanism_name(r->credential_infos[k].mechanism),
                   r->credential_infos[k].iterations);
        printf("\n");
    }
    return rc;
}

int gr_admin_configs_users(gr_admin_t *a, bool describe)
{
    const char *user = gr_admin_opt(a->opts, "entity-name");
    if (describe)
        return users_describe(a, user);
    if (!user) {
        fprintf(stderr, "error: alter needs --entity-name USER\n");
        return GR_ADMIN_EXIT_USAGE;
    }
    return users_alter(a, user);
}
