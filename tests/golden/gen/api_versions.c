/* Generated from proto/api_versions.gp by tools/gen_codec.py; do not edit. */
#include "gen/api_versions.h"

#include <errno.h>
#include <string.h>

static inline bool gr_api_versions_request_is_default(const gr_api_versions_request_t *in)
    __attribute__((unused));

void gr_api_versions_request_init(gr_api_versions_request_t *out)
{
    memset(out, 0, sizeof(*out));
    out->client_software_name = gr_str("");
    out->client_software_version = gr_str("");
}

static inline bool gr_api_versions_request_is_default(const gr_api_versions_request_t *in)
{
    (void)in;
    return (in->client_software_name.len == 0) && (in->client_software_version.len == 0);
}

int gr_api_versions_request_decode(gr_reader_t *r, int16_t v, gr_arena_t *a,
                                   gr_api_versions_request_t *out)
{
    int rc = 0;
    const bool flex = v >= 3;
    (void)v;
    (void)rc;
    (void)flex;
    (void)a;
    gr_api_versions_request_init(out);
    if (v >= 3) {
        out->client_software_name = gr_read_string(r, flex);
        if (out->client_software_name.len == GR_NULL_LEN)
            goto bad;
    }
    if (v >= 3) {
        out->client_software_version = gr_read_string(r, flex);
        if (out->client_software_version.len == GR_NULL_LEN)
            goto bad;
    }
    if (flex) {
        uint32_t tag_count = gr_read_uvarint(r);
        for (uint32_t t = 0; t < tag_count && !r->err; t++) {
            uint32_t tag = gr_read_uvarint(r);
            uint32_t tag_size = gr_read_uvarint(r);
            const uint8_t *tag_data = gr_read_raw(r, tag_size);
            if (!tag_data)
                break;
            (void)tag;
        }
    }
    return r->err;
bad:
    gr_reader_fail(r, -EBADMSG);
    return r->err;
}

int gr_api_versions_request_encode(gr_writer_t *w, int16_t v, const gr_api_versions_request_t *in)
{
    const bool flex = v >= 3;
    (void)flex;
    (void)v;
    if (v >= 3) {
        if (in->client_software_name.len == GR_NULL_LEN)
            gr_writer_fail(w, -EINVAL);
        gr_write_string(w, in->client_software_name, flex);
    }
    if (v >= 3) {
        if (in->client_software_version.len == GR_NULL_LEN)
            gr_writer_fail(w, -EINVAL);
        gr_write_string(w, in->client_software_version, flex);
    }
    if (flex) {
        gr_write_uvarint(w, 0);
    }
    return w->err;
}

size_t gr_api_versions_request_size(int16_t v, const gr_api_versions_request_t *in)
{
    const bool flex = v >= 3;
    size_t n = 0;
    (void)flex;
    (void)v;
    (void)in;
    if (v >= 3) {
        n += gr_string_len_size(in->client_software_name.len, flex);
        if (in->client_software_name.len > 0)
            n += (size_t)in->client_software_name.len;
    }
    if (v >= 3) {
        n += gr_string_len_size(in->client_software_version.len, flex);
        if (in->client_software_version.len > 0)
            n += (size_t)in->client_software_version.len;
    }
    if (flex) {
        uint32_t tag_count = 0;
        n += gr_uvarint_size(tag_count);
    }
    return n;
}

void gr_api_versions_request_dump(gr_writer_t *t, int16_t v, const gr_api_versions_request_t *in)
{
    int first = 1;
    (void)v;
    (void)in;
    gr_dump_char(t, '{');
    if (v >= 3) {
        gr_dump_key(t, &first, "ClientSoftwareName");
        gr_dump_str(t, in->client_software_name);
    }
    if (v >= 3) {
        gr_dump_key(t, &first, "ClientSoftwareVersion");
        gr_dump_str(t, in->client_software_version);
    }
    (void)first;
    gr_dump_char(t, '}');
}

static void gr_api_versions_request_init_any(void *m)
{
    gr_api_versions_request_init(m);
}
static int gr_api_versions_request_decode_any(gr_reader_t *r, int16_t v, gr_arena_t *a, void *m)
{
    return gr_api_versions_request_decode(r, v, a, m);
}
static int gr_api_versions_request_encode_any(gr_writer_t *w, int16_t v, const void *m)
{
    return gr_api_versions_request_encode(w, v, m);
}
static size_t gr_api_versions_request_size_any(int16_t v, const void *m)
{
    return gr_api_versions_request_size(v, m);
}
static void gr_api_versions_request_dump_any(gr_writer_t *t, int16_t v, const void *m)
{
    gr_api_versions_request_dump(t, v, m);
}
const gr_codec_desc_t gr_api_versions_request_desc = {
    "ApiVersionsRequest",
    GR_MESSAGE_REQUEST,
    18,
    0,
    4,
    3,
    sizeof(gr_api_versions_request_t),
    gr_api_versions_request_init_any,
    gr_api_versions_request_decode_any,
    gr_api_versions_request_encode_any,
    gr_api_versions_request_size_any,
    gr_api_versions_request_dump_any,
    NULL,
};

static inline bool
gr_api_versions_response_api_version_is_default(const gr_api_versions_response_api_version_t *in)
    __attribute__((unused));
static inline bool gr_api_versions_response_supported_feature_key_is_default(
    const gr_api_versions_response_supported_feature_key_t *in) __attribute__((unused));
static inline bool gr_api_versions_response_finalized_feature_key_is_default(
    const gr_api_versions_response_finalized_feature_key_t *in) __attribute__((unused));
static inline bool gr_api_versions_response_is_default(const gr_api_versions_response_t *in)
    __attribute__((unused));

void gr_api_versions_response_api_version_init(gr_api_versions_response_api_version_t *out)
{
    memset(out, 0, sizeof(*out));
}

static inline bool
gr_api_versions_response_api_version_is_default(const gr_api_versions_response_api_version_t *in)
{
    (void)in;
    return (in->api_key == 0) && (in->min_version == 0) && (in->max_version == 0);
}

static int gr_api_versions_response_api_version_decode(gr_reader_t *r, int16_t v, gr_arena_t *a,
                                                       gr_api_versions_response_api_version_t *out)
{
    int rc = 0;
    const bool flex = v >= 3;
    (void)v;
    (void)rc;
    (void)flex;
    (void)a;
    out->api_key = gr_read_int16(r);
    out->min_version = gr_read_int16(r);
    out->max_version = gr_read_int16(r);
    if (flex) {
        uint32_t tag_count = gr_read_uvarint(r);
        for (uint32_t t = 0; t < tag_count && !r->err; t++) {
            uint32_t tag = gr_read_uvarint(r);
            uint32_t tag_size = gr_read_uvarint(r);
            const uint8_t *tag_data = gr_read_raw(r, tag_size);
            if (!tag_data)
                break;
            (void)tag;
        }
    }
    return r->err;
}

static void
gr_api_versions_response_api_version_encode(gr_writer_t *w, int16_t v,
                                            const gr_api_versions_response_api_version_t *in)
{
    const bool flex = v >= 3;
    (void)flex;
    (void)v;
    gr_write_int16(w, in->api_key);
    gr_write_int16(w, in->min_version);
    gr_write_int16(w, in->max_version);
    if (flex) {
        gr_write_uvarint(w, 0);
    }
}

static size_t
gr_api_versions_response_api_version_size(int16_t v,
                                          const gr_api_versions_response_api_version_t *in)
{
    const bool flex = v >= 3;
    size_t n = 0;
    (void)flex;
    (void)v;
    (void)in;
    n += 2;
    n += 2;
    n += 2;
    if (flex) {
        uint32_t tag_count = 0;
        n += gr_uvarint_size(tag_count);
    }
    return n;
}

static void
gr_api_versions_response_api_version_dump(gr_writer_t *t, int16_t v,
                                          const gr_api_versions_response_api_version_t *in)
{
    int first = 1;
    (void)v;
    (void)in;
    gr_dump_char(t, '{');
    gr_dump_key(t, &first, "ApiKey");
    gr_dump_int(t, in->api_key);
    gr_dump_key(t, &first, "MinVersion");
    gr_dump_int(t, in->min_version);
    gr_dump_key(t, &first, "MaxVersion");
    gr_dump_int(t, in->max_version);
    (void)first;
    gr_dump_char(t, '}');
}

void gr_api_versions_response_supported_feature_key_init(
    gr_api_versions_response_supported_feature_key_t *out)
{
    memset(out, 0, sizeof(*out));
    out->name = gr_str("");
}

static inline bool gr_api_versions_response_supported_feature_key_is_default(
    const gr_api_versions_response_supported_feature_key_t *in)
{
    (void)in;
    return (in->name.len == 0) && (in->min_version == 0) && (in->max_version == 0);
}

static int gr_api_versions_response_supported_feature_key_decode(
    gr_reader_t *r, int16_t v, gr_arena_t *a, gr_api_versions_response_supported_feature_key_t *out)
{
    int rc = 0;
    const bool flex = true;
    (void)v;
    (void)rc;
    (void)flex;
    (void)a;
    out->name = gr_read_string(r, flex);
    if (out->name.len == GR_NULL_LEN)
        goto bad;
    out->min_version = gr_read_int16(r);
    out->max_version = gr_read_int16(r);
    uint32_t tag_count = gr_read_uvarint(r);
    for (uint32_t t = 0; t < tag_count && !r->err; t++) {
        uint32_t tag = gr_read_uvarint(r);
        uint32_t tag_size = gr_read_uvarint(r);
        const uint8_t *tag_data = gr_read_raw(r, tag_size);
        if (!tag_data)
            break;
        (void)tag;
    }
    return r->err;
bad:
    gr_reader_fail(r, -EBADMSG);
    return r->err;
}

static void gr_api_versions_response_supported_feature_key_encode(
    gr_writer_t *w, int16_t v, const gr_api_versions_response_supported_feature_key_t *in)
{
    const bool flex = true;
    (void)flex;
    (void)v;
    if (in->name.len == GR_NULL_LEN)
        gr_writer_fail(w, -EINVAL);
    gr_write_string(w, in->name, flex);
    gr_write_int16(w, in->min_version);
    gr_write_int16(w, in->max_version);
    gr_write_uvarint(w, 0);
}

static size_t gr_api_versions_response_supported_feature_key_size(
    int16_t v, const gr_api_versions_response_supported_feature_key_t *in)
{
    const bool flex = true;
    size_t n = 0;
    (void)flex;
    (void)v;
    (void)in;
    n += gr_string_len_size(in->name.len, flex);
    if (in->name.len > 0)
        n += (size_t)in->name.len;
    n += 2;
    n += 2;
    uint32_t tag_count = 0;
    n += gr_uvarint_size(tag_count);
    return n;
}

static void gr_api_versions_response_supported_feature_key_dump(
    gr_writer_t *t, int16_t v, const gr_api_versions_response_supported_feature_key_t *in)
{
    int first = 1;
    (void)v;
    (void)in;
    gr_dump_char(t, '{');
    gr_dump_key(t, &first, "Name");
    gr_dump_str(t, in->name);
    gr_dump_key(t, &first, "MinVersion");
    gr_dump_int(t, in->min_version);
    gr_dump_key(t, &first, "MaxVersion");
    gr_dump_int(t, in->max_version);
    (void)first;
    gr_dump_char(t, '}');
}

void gr_api_versions_response_finalized_feature_key_init(
    gr_api_versions_response_finalized_feature_key_t *out)
{
    memset(out, 0, sizeof(*out));
    out->name = gr_str("");
}

static inline bool gr_api_versions_response_finalized_feature_key_is_default(
    const gr_api_versions_response_finalized_feature_key_t *in)
{
    (void)in;
    return (in->name.len == 0) && (in->max_version_level == 0) && (in->min_version_level == 0);
}

static int gr_api_versions_response_finalized_feature_key_decode(
    gr_reader_t *r, int16_t v, gr_arena_t *a, gr_api_versions_response_finalized_feature_key_t *out)
{
    int rc = 0;
    const bool flex = true;
    (void)v;
    (void)rc;
    (void)flex;
    (void)a;
    out->name = gr_read_string(r, flex);
    if (out->name.len == GR_NULL_LEN)
        goto bad;
    out->max_version_level = gr_read_int16(r);
    out->min_version_level = gr_read_int16(r);
    uint32_t tag_count = gr_read_uvarint(r);
    for (uint32_t t = 0; t < tag_count && !r->err; t++) {
        uint32_t tag = gr_read_uvarint(r);
        uint32_t tag_size = gr_read_uvarint(r);
        const uint8_t *tag_data = gr_read_raw(r, tag_size);
        if (!tag_data)
            break;
        (void)tag;
    }
    return r->err;
bad:
    gr_reader_fail(r, -EBADMSG);
    return r->err;
}

static void gr_api_versions_response_finalized_feature_key_encode(
    gr_writer_t *w, int16_t v, const gr_api_versions_response_finalized_feature_key_t *in)
{
    const bool flex = true;
    (void)flex;
    (void)v;
    if (in->name.len == GR_NULL_LEN)
        gr_writer_fail(w, -EINVAL);
    gr_write_string(w, in->name, flex);
    gr_write_int16(w, in->max_version_level);
    gr_write_int16(w, in->min_version_level);
    gr_write_uvarint(w, 0);
}

static size_t gr_api_versions_response_finalized_feature_key_size(
    int16_t v, const gr_api_versions_response_finalized_feature_key_t *in)
{
    const bool flex = true;
    size_t n = 0;
    (void)flex;
    (void)v;
    (void)in;
    n += gr_string_len_size(in->name.len, flex);
    if (in->name.len > 0)
        n += (size_t)in->name.len;
    n += 2;
    n += 2;
    uint32_t tag_count = 0;
    n += gr_uvarint_size(tag_count);
    return n;
}

static void gr_api_versions_response_finalized_feature_key_dump(
    gr_writer_t *t, int16_t v, const gr_api_versions_response_finalized_feature_key_t *in)
{
    int first = 1;
    (void)v;
    (void)in;
    gr_dump_char(t, '{');
    gr_dump_key(t, &first, "Name");
    gr_dump_str(t, in->name);
    gr_dump_key(t, &first, "MaxVersionLevel");
    gr_dump_int(t, in->max_version_level);
    gr_dump_key(t, &first, "MinVersionLevel");
    gr_dump_int(t, in->min_version_level);
    (void)first;
    gr_dump_char(t, '}');
}

void gr_api_versions_response_init(gr_api_versions_response_t *out)
{
    memset(out, 0, sizeof(*out));
    out->api_keys = NULL;
    out->api_keys_count = 0;
    out->supported_features = NULL;
    out->supported_features_count = 0;
    out->finalized_features_epoch = -1LL;
    out->finalized_features = NULL;
    out->finalized_features_count = 0;
}

static inline bool gr_api_versions_response_is_default(const gr_api_versions_response_t *in)
{
    (void)in;
    return (in->error_code == 0) && (in->api_keys_count == 0) && (in->throttle_time_ms == 0) &&
           (in->supported_features_count == 0) && (in->finalized_features_epoch == -1LL) &&
           (in->finalized_features_count == 0) && (in->zk_migration_ready == false);
}

int gr_api_versions_response_decode(gr_reader_t *r, int16_t v, gr_arena_t *a,
                                    gr_api_versions_response_t *out)
{
    int rc = 0;
    const bool flex = v >= 3;
    (void)v;
    (void)rc;
    (void)flex;
    (void)a;
    gr_api_versions_response_init(out);
    out->error_code = gr_read_int16(r);
    {
        int32_t n0 = gr_read_array_len(r, flex);
        if (n0 == GR_NULL_LEN)
            goto bad;
        out->api_keys_count = n0;
        out->api_keys = NULL;
        if (n0 > 0) {
            out->api_keys = gr_arena_alloc(a, (size_t)n0 * sizeof(*out->api_keys));
            if (!out->api_keys)
                return -ENOMEM;
        }
        for (int32_t i0 = 0; i0 < n0 && !r->err; i0++) {
            gr_api_versions_response_api_version_init(&out->api_keys[i0]);
            if ((rc = gr_api_versions_response_api_version_decode(r, v, a, &out->api_keys[i0])) !=
                0)
                return rc;
        }
    }
    if (v >= 1) {
        out->throttle_time_ms = gr_read_int32(r);
    }
    if (flex) {
        uint32_t tag_count = gr_read_uvarint(r);
        for (uint32_t t = 0; t < tag_count && !r->err; t++) {
            uint32_t tag = gr_read_uvarint(r);
            uint32_t tag_size = gr_read_uvarint(r);
            const uint8_t *tag_data = gr_read_raw(r, tag_size);
            if (!tag_data)
                break;
            gr_reader_t sub;
            gr_reader_init(&sub, tag_data, tag_size);
            switch (tag) {
            case 0:
                if (v >= 3) {
                    {
                        int32_t n0 = gr_read_array_len((&sub), flex);
                        if (n0 == GR_NULL_LEN)
                            goto bad;
                        out->supported_features_count = n0;
                        out->supported_features = NULL;
                        if (n0 > 0) {
                            out->supported_features =
                                gr_arena_alloc(a, (size_t)n0 * sizeof(*out->supported_features));
                            if (!out->supported_features)
                                return -ENOMEM;
                        }
                        for (int32_t i0 = 0; i0 < n0 && !(&sub)->err; i0++) {
                            gr_api_versions_response_supported_feature_key_init(
                                &out->supported_features[i0]);
                            if ((rc = gr_api_versions_response_supported_feature_key_decode(
                                     (&sub), v, a, &out->supported_features[i0])) != 0)
                                return rc;
                        }
                    }
                    if (sub.err || gr_reader_left(&sub) != 0)
                        goto bad;
                }
                break;
            case 1:
                if (v >= 3) {
                    out->finalized_features_epoch = gr_read_int64((&sub));
                    if (sub.err || gr_reader_left(&sub) != 0)
                        goto bad;
                }
                break;
            case 2:
                if (v >= 3) {
                    {
                        int32_t n0 = gr_read_array_len((&sub), flex);
                        if (n0 == GR_NULL_LEN)
                            goto bad;
                        out->finalized_features_count = n0;
                        out->finalized_features = NULL;
                        if (n0 > 0) {
                            out->finalized_features =
                                gr_arena_alloc(a, (size_t)n0 * sizeof(*out->finalized_features));
                            if (!out->finalized_features)
                                return -ENOMEM;
                        }
                        for (int32_t i0 = 0; i0 < n0 && !(&sub)->err; i0++) {
                            gr_api_versions_response_finalized_feature_key_init(
                                &out->finalized_features[i0]);
                            if ((rc = gr_api_versions_response_finalized_feature_key_decode(
                                     (&sub), v, a, &out->finalized_features[i0])) != 0)
                                return rc;
                        }
                    }
                    if (sub.err || gr_reader_left(&sub) != 0)
                        goto bad;
                }
                break;
            case 3:
                if (v >= 3) {
                    out->zk_migration_ready = gr_read_bool((&sub));
                    if (sub.err || gr_reader_left(&sub) != 0)
                        goto bad;
                }
                break;
            default: /* unknown tags are skipped */
                break;
            }
        }
    }
    return r->err;
bad:
    gr_reader_fail(r, -EBADMSG);
    return r->err;
}

int gr_api_versions_response_encode(gr_writer_t *w, int16_t v, const gr_api_versions_response_t *in)
{
    const bool flex = v >= 3;
    (void)flex;
    (void)v;
    gr_write_int16(w, in->error_code);
    if (in->api_keys_count < 0) /* counts are never negative: a caller's bug */
        gr_writer_fail(w, -EINVAL);
    gr_write_array_len(w, in->api_keys_count, flex);
    for (int32_t i0 = 0; i0 < in->api_keys_count; i0++) {
        gr_api_versions_response_api_version_encode(w, v, &in->api_keys[i0]);
    }
    if (v >= 1) {
        gr_write_int32(w, in->throttle_time_ms);
    }
    if (flex) {
        uint32_t tag_count = 0;
        if (v >= 3 && !(in->supported_features_count == 0))
            tag_count++;
        if (v >= 3 && !(in->finalized_features_epoch == -1LL))
            tag_count++;
        if (v >= 3 && !(in->finalized_features_count == 0))
            tag_count++;
        if (v >= 3 && !(in->zk_migration_ready == false))
            tag_count++;
        gr_write_uvarint(w, tag_count);
        if (v >= 3 && !(in->supported_features_count == 0)) {
            size_t tag_size = 0;
            tag_size += gr_bytes_len_size(in->supported_features_count, flex);
            for (int32_t i0 = 0; i0 < in->supported_features_count; i0++) {
                tag_size += gr_api_versions_response_supported_feature_key_size(
                    v, &in->supported_features[i0]);
            }
            gr_write_uvarint(w, 0);
            gr_write_uvarint(w, (uint32_t)tag_size);
            if (in->supported_features_count < 0) /* counts are never negative: a caller's bug */
                gr_writer_fail(w, -EINVAL);
            gr_write_array_len(w, in->supported_features_count, flex);
            for (int32_t i0 = 0; i0 < in->supported_features_count; i0++) {
                gr_api_versions_response_supported_feature_key_encode(w, v,
                                                                      &in->supported_features[i0]);
            }
        }
        if (v >= 3 && !(in->finalized_features_epoch == -1LL)) {
            size_t tag_size = 0;
            tag_size += 8;
            gr_write_uvarint(w, 1);
            gr_write_uvarint(w, (uint32_t)tag_size);
            gr_write_int64(w, in->finalized_features_epoch);
        }
        if (v >= 3 && !(in->finalized_features_count == 0)) {
            size_t tag_size = 0;
            tag_size += gr_bytes_len_size(in->finalized_features_count, flex);
            for (int32_t i0 = 0; i0 < in->finalized_features_count; i0++) {
                tag_size += gr_api_versions_response_finalized_feature_key_size(
                    v, &in->finalized_features[i0]);
            }
            gr_write_uvarint(w, 2);
            gr_write_uvarint(w, (uint32_t)tag_size);
            if (in->finalized_features_count < 0) /* counts are never negative: a caller's bug */
                gr_writer_fail(w, -EINVAL);
            gr_write_array_len(w, in->finalized_features_count, flex);
            for (int32_t i0 = 0; i0 < in->finalized_features_count; i0++) {
                gr_api_versions_response_finalized_feature_key_encode(w, v,
                                                                      &in->finalized_features[i0]);
            }
        }
        if (v >= 3 && !(in->zk_migration_ready == false)) {
            size_t tag_size = 0;
            tag_size += 1;
            gr_write_uvarint(w, 3);
            gr_write_uvarint(w, (uint32_t)tag_size);
            gr_write_bool(w, in->zk_migration_ready);
        }
    }
    return w->err;
}

size_t gr_api_versions_response_size(int16_t v, const gr_api_versions_response_t *in)
{
    const bool flex = v >= 3;
    size_t n = 0;
    (void)flex;
    (void)v;
    (void)in;
    n += 2;
    n += gr_bytes_len_size(in->api_keys_count, flex);
    for (int32_t i0 = 0; i0 < in->api_keys_count; i0++) {
        n += gr_api_versions_response_api_version_size(v, &in->api_keys[i0]);
    }
    if (v >= 1) {
        n += 4;
    }
    if (flex) {
        uint32_t tag_count = 0;
        if (v >= 3 && !(in->supported_features_count == 0)) {
            size_t tag_size = 0;
            tag_size += gr_bytes_len_size(in->supported_features_count, flex);
            for (int32_t i0 = 0; i0 < in->supported_features_count; i0++) {
                tag_size += gr_api_versions_response_supported_feature_key_size(
                    v, &in->supported_features[i0]);
            }
            n += gr_uvarint_size(0) + gr_uvarint_size((uint32_t)tag_size) + tag_size;
            tag_count++;
        }
        if (v >= 3 && !(in->finalized_features_epoch == -1LL)) {
            size_t tag_size = 0;
            tag_size += 8;
            n += gr_uvarint_size(1) + gr_uvarint_size((uint32_t)tag_size) + tag_size;
            tag_count++;
        }
        if (v >= 3 && !(in->finalized_features_count == 0)) {
            size_t tag_size = 0;
            tag_size += gr_bytes_len_size(in->finalized_features_count, flex);
            for (int32_t i0 = 0; i0 < in->finalized_features_count; i0++) {
                tag_size += gr_api_versions_response_finalized_feature_key_size(
                    v, &in->finalized_features[i0]);
            }
            n += gr_uvarint_size(2) + gr_uvarint_size((uint32_t)tag_size) + tag_size;
            tag_count++;
        }
        if (v >= 3 && !(in->zk_migration_ready == false)) {
            size_t tag_size = 0;
            tag_size += 1;
            n += gr_uvarint_size(3) + gr_uvarint_size((uint32_t)tag_size) + tag_size;
            tag_count++;
        }
        n += gr_uvarint_size(tag_count);
    }
    return n;
}

void gr_api_versions_response_dump(gr_writer_t *t, int16_t v, const gr_api_versions_response_t *in)
{
    int first = 1;
    (void)v;
    (void)in;
    gr_dump_char(t, '{');
    gr_dump_key(t, &first, "ErrorCode");
    gr_dump_int(t, in->error_code);
    gr_dump_key(t, &first, "ApiKeys");
    gr_dump_char(t, '[');
    for (int32_t i = 0; i < in->api_keys_count; i++) {
        if (i)
            gr_dump_char(t, ',');
        gr_api_versions_response_api_version_dump(t, v, &in->api_keys[i]);
    }
    gr_dump_char(t, ']');
    if (v >= 1) {
        gr_dump_key(t, &first, "ThrottleTimeMs");
        gr_dump_int(t, in->throttle_time_ms);
    }
    if (v >= 3) {
        gr_dump_key(t, &first, "SupportedFeatures");
        gr_dump_char(t, '[');
        for (int32_t i = 0; i < in->supported_features_count; i++) {
            if (i)
                gr_dump_char(t, ',');
            gr_api_versions_response_supported_feature_key_dump(t, v, &in->supported_features[i]);
        }
        gr_dump_char(t, ']');
    }
    if (v >= 3) {
        gr_dump_key(t, &first, "FinalizedFeaturesEpoch");
        gr_dump_int(t, in->finalized_features_epoch);
    }
    if (v >= 3) {
        gr_dump_key(t, &first, "FinalizedFeatures");
        gr_dump_char(t, '[');
        for (int32_t i = 0; i < in->finalized_features_count; i++) {
            if (i)
                gr_dump_char(t, ',');
            gr_api_versions_response_finalized_feature_key_dump(t, v, &in->finalized_features[i]);
        }
        gr_dump_char(t, ']');
    }
    if (v >= 3) {
        gr_dump_key(t, &first, "ZkMigrationReady");
        gr_dump_bool(t, in->zk_migration_ready);
    }
    (void)first;
    gr_dump_char(t, '}');
}

void gr_api_versions_response_errors(int16_t v, const gr_api_versions_response_t *in,
                                     gr_error_code_fn *fn, void *ctx)
{
    (void)v;
    fn(ctx, in->error_code);
}

static void gr_api_versions_response_init_any(void *m)
{
    gr_api_versions_response_init(m);
}
static int gr_api_versions_response_decode_any(gr_reader_t *r, int16_t v, gr_arena_t *a, void *m)
{
    return gr_api_versions_response_decode(r, v, a, m);
}
static int gr_api_versions_response_encode_any(gr_writer_t *w, int16_t v, const void *m)
{
    return gr_api_versions_response_encode(w, v, m);
}
static size_t gr_api_versions_response_size_any(int16_t v, const void *m)
{
    return gr_api_versions_response_size(v, m);
}
static void gr_api_versions_response_dump_any(gr_writer_t *t, int16_t v, const void *m)
{
    gr_api_versions_response_dump(t, v, m);
}
static void gr_api_versions_response_errors_any(int16_t v, const void *m, gr_error_code_fn *f,
                                                void *ctx)
{
    gr_api_versions_response_errors(v, m, f, ctx);
}
const gr_codec_desc_t gr_api_versions_response_desc = {
    "ApiVersionsResponse",
    GR_MESSAGE_RESPONSE,
    18,
    0,
    4,
    3,
    sizeof(gr_api_versions_response_t),
    gr_api_versions_response_init_any,
    gr_api_versions_response_decode_any,
    gr_api_versions_response_encode_any,
    gr_api_versions_response_size_any,
    gr_api_versions_response_dump_any,
    gr_api_versions_response_errors_any,
};
