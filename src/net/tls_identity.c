/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether a listener's new server context may replace its current one: the
 * checks Kafka's SslFactory makes on a keystore changed live, so a rotation
 * cannot silently change who the broker says it is. A PEM keystore holds one
 * entry (its leaf certificate), so the entry lists Kafka compares are one
 * certificate each here.
 *
 * Runs on: the loop thread.
 */
#include "net/tls.h"
#include "net/tls_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* The certificate's subject in RFC 2253 form into buf ("" when unprintable). */
static void subject_text(X509 *cert, char *buf, size_t size)
{
    buf[0] = '\0';
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio)
        return;
    if (X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253) >= 0) {
        int n = BIO_read(bio, buf, (int)size - 1);
        buf[n > 0 ? n : 0] = '\0';
    }
    BIO_free(bio);
}

/* Whether every subject alternative name of cur is one of next's too. */
static bool sans_kept(X509 *cur, X509 *next)
{
    GENERAL_NAMES *old_names = X509_get_ext_d2i(cur, NID_subject_alt_name, NULL, NULL);
    GENERAL_NAMES *new_names = X509_get_ext_d2i(next, NID_subject_alt_name, NULL, NULL);
    bool kept = true;
    for (int i = 0; kept && i < sk_GENERAL_NAME_num(old_names); i++) {
        GENERAL_NAME *name = sk_GENERAL_NAME_value(old_names, i);
        kept = false;
        for (int j = 0; !kept && j < sk_GENERAL_NAME_num(new_names); j++)
            kept = GENERAL_NAME_cmp(name, sk_GENERAL_NAME_value(new_names, j)) == 0;
    }
    GENERAL_NAMES_free(old_names);
    GENERAL_NAMES_free(new_names);
    return kept;
}

/* Same subject DN and kept SANs, unless allowed to change. */
static int check_certificate(X509 *cur, X509 *next, bool allow_dn_changes, bool allow_san_changes,
                             char *err, size_t errlen)
{
    char old_dn[GR_TLS_SUBJECT_MAX], new_dn[GR_TLS_SUBJECT_MAX];
    subject_text(cur, old_dn, sizeof old_dn);
    subject_text(next, new_dn, sizeof new_dn);
    if (!allow_dn_changes &&
        X509_NAME_cmp(X509_get_subject_name(cur), X509_get_subject_name(next)) &&
        strcasecmp(old_dn, new_dn) != 0) {
        snprintf(err, errlen,
                 "Keystore DistinguishedName does not match: existing DN=%s, new DN=%s "
                 "(ssl.allow.dn.changes=true allows it)",
                 old_dn, new_dn);
        return -EINVAL;
    }
    if (!allow_san_changes && !sans_kept(cur, next)) {
        snprintf(err, errlen,
                 "Keystore SubjectAltNames do not match: the new certificate (DN=%s) lacks some of "
                 "the existing one's (ssl.allow.san.changes=true allows it)",
                 new_dn);
        return -EINVAL;
    }
    return 0;
}

int gr_tls_ctx_check_replace(const gr_tls_ctx_t *cur, const gr_tls_ctx_t *next,
                             bool allow_dn_changes, bool allow_san_changes, char *err,
                             size_t errlen)
{
    if (!cur->has_keystore && next->has_keystore) {
        snprintf(err, errlen,
                 "Cannot add SSL keystore to an existing listener for which no "
                 "keystore was configured.");
        return -EINVAL;
    }
    if (cur->has_keystore && !next->has_keystore) {
        snprintf(err, errlen,
                 "Cannot remove the SSL keystore from an existing listener for which "
                 "a keystore was configured.");
        return -EINVAL;
    }
    if (!cur->has_truststore && next->has_truststore) {
        snprintf(err, errlen,
                 "Cannot add SSL truststore to an existing listener for which no "
                 "truststore was configured.");
        return -EINVAL;
    }
    X509 *old_cert = SSL_CTX_get0_certificate(cur->ssl);
    X509 *new_cert = SSL_CTX_get0_certificate(next->ssl);
    if (!old_cert || !new_cert)
        return 0; /* no keystore on either side */
    return check_certificate(old_cert, new_cert, allow_dn_changes, allow_san_changes, err, errlen);
}

const char *gr_tls_ctx_describe(const gr_tls_ctx_t *ctx, char *buf, size_t size)
{
    X509 *cert = SSL_CTX_get0_certificate(ctx->ssl);
    buf[0] = '\0';
    if (!cert)
        return buf;
    char dn[GR_TLS_SUBJECT_MAX];
    subject_text(cert, dn, sizeof dn);
    BIGNUM *serial = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), NULL);
    char *hex = serial ? BN_bn2hex(serial) : NULL;
    snprintf(buf, size, "subject %s, serial %s", dn, hex ? hex : "?");
    OPENSSL_free(hex);
    BN_free(serial);
    return buf;
}
