/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --command-config FILE: see command_config.h. Properties are "key=value" or
 * "key: value" lines; '#' and '!' start comments; blanks around keys and
 * values are dropped. librdkafka's certificate and key files are read whole
 * into the inline keystore fields, since they come as two files where a Kafka
 * PEM keystore is one.
 */
#include "admin/command_config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "core/file_read.h"
#include "security/jaas.h"
#include "security/sasl_config.h"

#define LINE_MAX_BYTES 8192
#define PEM_FILE_MAX   (1024 * 1024)

typedef enum value_kind {
    VALUE_TEXT, /* the value itself */
    VALUE_FILE, /* the contents of the file the value names */
} value_kind_t;

typedef struct key_def {
    const char *name;
    size_t offset; /* of the const char * field in gr_admin_command_config_t */
    value_kind_t kind;
} key_def_t;

#define TLS_FIELD(f) offsetof(gr_admin_command_config_t, tls.f)

static const key_def_t keys[] = {
    {"security.protocol", offsetof(gr_admin_command_config_t, security_protocol), VALUE_TEXT},
    {"ssl.truststore.type", TLS_FIELD(truststore_type), VALUE_TEXT},
    {"ssl.truststore.location", TLS_FIELD(truststore_location), VALUE_TEXT},
    {"ssl.truststore.certificates", TLS_FIELD(truststore_certificates), VALUE_TEXT},
    {"ssl.keystore.type", TLS_FIELD(keystore_type), VALUE_TEXT},
    {"ssl.keystore.location", TLS_FIELD(keystore_location), VALUE_TEXT},
    {"ssl.keystore.certificate.chain", TLS_FIELD(keystore_certificate_chain), VALUE_TEXT},
    {"ssl.keystore.key", TLS_FIELD(keystore_key), VALUE_TEXT},
    {"ssl.key.password", TLS_FIELD(key_password), VALUE_TEXT},
    {"ssl.endpoint.identification.algorithm", TLS_FIELD(endpoint_identification), VALUE_TEXT},
    {"ssl.enabled.protocols", TLS_FIELD(enabled_protocols), VALUE_TEXT},
    {"ssl.protocol", TLS_FIELD(protocol), VALUE_TEXT},
    {"ssl.cipher.suites", TLS_FIELD(cipher_suites), VALUE_TEXT},
    /* librdkafka's names */
    {"ssl.ca.location", TLS_FIELD(truststore_location), VALUE_TEXT},
    {"ssl.certificate.location", TLS_FIELD(keystore_certificate_chain), VALUE_FILE},
    {"ssl.key.location", TLS_FIELD(keystore_key), VALUE_FILE},
    {"sasl.mechanism", offsetof(gr_admin_command_config_t, sasl_mechanism), VALUE_TEXT},
    {"sasl.jaas.config", offsetof(gr_admin_command_config_t, sasl_jaas_config), VALUE_TEXT},
    {"sasl.username", offsetof(gr_admin_command_config_t, sasl_username), VALUE_TEXT},
    {"sasl.password", offsetof(gr_admin_command_config_t, sasl_password), VALUE_TEXT},
    {"sasl.mechanisms", offsetof(gr_admin_command_config_t, sasl_mechanism), VALUE_TEXT},
};

/* Unused by a client, accepted without a warning. */
static const char *const ignored[] = {"ssl.truststore.password", "ssl.keystore.password", NULL};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* Keeps a copy of value (or of the file it names) in c and points the key's field at it. */
static int set_key(gr_admin_command_config_t *c, const key_def_t *k, const char *value,
                   const char *path)
{
    if (c->value_count == GR_ADMIN_CONFIG_VALUES_MAX) {
        fprintf(stderr, "error: %s: too many settings\n", path);
        return -1;
    }
    char *copy = NULL;
    if (k->kind == VALUE_FILE) {
        size_t len = 0;
        int fd = open(value, O_RDONLY | O_CLOEXEC);
        int rc = fd < 0 ? -errno : gr_file_read_all(fd, PEM_FILE_MAX, &copy, &len);
        if (fd >= 0)
            close(fd);
        if (rc < 0) {
            fprintf(stderr, "error: %s: %s %s: %s\n", path, k->name, value, strerror(-rc));
            return -1;
        }
    } else if (!(copy = strdup(value))) {
        return -1;
    }
    c->values[c->value_count++] = copy;
    *(const char **)((char *)c + k->offset) = copy;
    return 0;
}

static int set_line(gr_admin_command_config_t *c, char *line, const char *path, int lineno)
{
    char *s = trim(line);
    if (!*s || *s == '#' || *s == '!')
        return 0;
    size_t klen = strcspn(s, "=:");
    if (!s[klen]) {
        fprintf(stderr, "error: %s:%d: expected key=value\n", path, lineno);
        return -1;
    }
    s[klen] = '\0';
    const char *key = trim(s), *value = trim(s + klen + 1);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(keys[i].name, key) == 0)
            return set_key(c, &keys[i], value, path);
    for (int i = 0; ignored[i]; i++)
        if (strcmp(ignored[i], key) == 0)
            return 0;
    fprintf(stderr, "warning: %s: unknown configuration '%s' ignored\n", path, key);
    return 0;
}

/* Whether the line (newline stripped) ends in an odd number of backslashes. */
static bool continues(char *line)
{
    size_t len = strcspn(line, "\r\n"), n = 0;
    line[len] = '\0';
    while (n < len && line[len - 1 - n] == '\\')
        n++;
    if (n % 2 == 0)
        return false;
    line[len - 1] = '\0';
    return true;
}

/*
 * One logical line of a properties file into buf: lines ending in a
 * backslash continue on the next, whose leading blanks are dropped (as Java
 * reads them, so a JAAS line may span several); a comment line never
 * continues. 1, 0 at the end, -ENOSPC.
 */
static int read_logical_line(FILE *f, char *buf, size_t size, int *lineno)
{
    size_t used = 0;
    char part[LINE_MAX_BYTES];
    bool more = true;
    int rc = 0;
    while (rc == 0 && more && fgets(part, sizeof part, f)) {
        ++*lineno;
        char first = part[strspn(part, " \t\f")];
        bool comment = used == 0 && (first == '#' || first == '!');
        more = continues(part) && !comment;
        const char *text = used ? part + strspn(part, " \t\f") : part;
        size_t len = strlen(text);
        if (used + len + 1 > size) {
            rc = -ENOSPC;
            break;
        }
        memcpy(buf + used, text, len + 1);
        used += len;
    }
    OPENSSL_cleanse(part, sizeof part); /* may hold a password */
    return rc ? rc : used || !more ? 1 : 0;
}

int gr_admin_command_config_load(const char *path, gr_admin_command_config_t *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: --command-config %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[LINE_MAX_BYTES];
    int lineno = 0, rc = 0;
    while (rc == 0 && (rc = read_logical_line(f, line, sizeof line, &lineno)) > 0)
        rc = set_line(out, line, path, lineno);
    fclose(f);
    OPENSSL_cleanse(line, sizeof line);
    if (rc == -ENOSPC)
        fprintf(stderr, "error: %s:%d: line too long\n", path, lineno);
    const char *p = out->security_protocol;
    if (rc == 0 && p && strcasecmp(p, "PLAINTEXT") && strcasecmp(p, "SSL") &&
        strcasecmp(p, "SASL_PLAINTEXT") && strcasecmp(p, "SASL_SSL")) {
        fprintf(stderr, "error: %s: security.protocol=%s is not a Kafka security protocol\n", path,
                p);
        rc = -1;
    }
    if (rc)
        gr_admin_command_config_fini(out);
    return rc;
}

bool gr_admin_command_config_tls(const gr_admin_command_config_t *c)
{
    const char *p = c->security_protocol;
    return p && (strcasecmp(p, "SSL") == 0 || strcasecmp(p, "SASL_SSL") == 0);
}

bool gr_admin_command_config_sasl(const gr_admin_command_config_t *c)
{
    const char *p = c->security_protocol;
    return p && strncasecmp(p, "SASL_", strlen("SASL_")) == 0;
}

/* username and password from the JAAS line, else librdkafka's keys. */
static int credentials(const gr_admin_command_config_t *c, const char *path, char **user,
                       char **password)
{
    gr_jaas_t jaas = {0};
    const char *u = c->sasl_username, *pw = c->sasl_password;
    if (c->sasl_jaas_config) {
        char err[256];
        if (gr_jaas_parse(c->sasl_jaas_config, &jaas, err, sizeof err)) {
            fprintf(stderr, "error: %s: sasl.jaas.config: %s\n", path, err);
            return -1;
        }
        u = gr_jaas_find(&jaas, "username");
        pw = gr_jaas_find(&jaas, "password");
    }
    int rc = 0;
    if (!u || !pw) {
        fprintf(stderr,
                "error: %s: SASL needs a username and password (sasl.jaas.config's options, "
                "or sasl.username and sasl.password)\n",
                path);
        rc = -1;
    } else if (!(*user = strdup(u)) || !(*password = strdup(pw))) {
        free(*user);
        *user = NULL;
        rc = -1;
    }
    gr_jaas_fini(&jaas);
    return rc;
}

int gr_admin_command_config_login(const gr_admin_command_config_t *c, const char *path,
                                  int *mechanism, char **user, char **password)
{
    const char *name = c->sasl_mechanism ? c->sasl_mechanism : "GSSAPI";
    *mechanism = gr_sasl_mechanism_find(name);
    if (*mechanism < 0) {
        fprintf(stderr,
                "error: %s: sasl.mechanism=%s is not supported (PLAIN, SCRAM-SHA-256, "
                "SCRAM-SHA-512)\n",
                path, name);
        return -1;
    }
    return credentials(c, path, user, password);
}

void gr_admin_command_config_fini(gr_admin_command_config_t *c)
{
    /* Values include sasl.password and sasl.jaas.config. */
    for (int i = 0; i < c->value_count; i++) {
        OPENSSL_cleanse(c->values[i], strlen(c->values[i]));
        free(c->values[i]);
    }
    memset(c, 0, sizeof *c);
}
