/* Generated from proto/api_versions.gp by tools/gen_codec.py; do not edit. */
#ifndef GR_GEN_API_VERSIONS_H
#define GR_GEN_API_VERSIONS_H

#include "protocol/codec.h"

#define GR_API_API_VERSIONS 18

/* ApiVersionsRequest: versions 0-4, flexible 3+ */
#define GR_API_VERSIONS_REQUEST_MIN_VERSION 0
#define GR_API_VERSIONS_REQUEST_MAX_VERSION 4

typedef struct gr_api_versions_request {
    gr_str_t client_software_name;    /* client library name */
    gr_str_t client_software_version; /* client library version */
} gr_api_versions_request_t;

/* Set every field to its schema default (nested structs too). */
void gr_api_versions_request_init(gr_api_versions_request_t *out);
/* Returns 0 or a negative errno; strings point into r's buffer, arrays into a. */
int gr_api_versions_request_decode(gr_reader_t *r, int16_t v, gr_arena_t *a,
                                   gr_api_versions_request_t *out);
/* Returns 0, or -EINVAL if in holds what version v cannot carry. */
int gr_api_versions_request_encode(gr_writer_t *w, int16_t v, const gr_api_versions_request_t *in);
size_t gr_api_versions_request_size(int16_t v, const gr_api_versions_request_t *in);
void gr_api_versions_request_dump(gr_writer_t *t, int16_t v, const gr_api_versions_request_t *in);
extern const gr_codec_desc_t gr_api_versions_request_desc;

/* ApiVersionsResponse: versions 0-4, flexible 3+ */
#define GR_API_VERSIONS_RESPONSE_MIN_VERSION 0
#define GR_API_VERSIONS_RESPONSE_MAX_VERSION 4

typedef struct gr_api_versions_response_api_version {
    int16_t api_key;     /* API key */
    int16_t min_version; /* lowest supported version */
    int16_t max_version; /* highest supported version */
} gr_api_versions_response_api_version_t;

typedef struct gr_api_versions_response_supported_feature_key {
    gr_str_t name;       /* feature name */
    int16_t min_version; /* lowest supported feature version */
    int16_t max_version; /* highest supported feature version */
} gr_api_versions_response_supported_feature_key_t;

typedef struct gr_api_versions_response_finalized_feature_key {
    gr_str_t name;             /* feature name */
    int16_t max_version_level; /* highest finalized version level */
    int16_t min_version_level; /* lowest finalized version level */
} gr_api_versions_response_finalized_feature_key_t;

typedef struct gr_api_versions_response {
    int16_t error_code;                               /* Kafka error code, 0 on success */
    gr_api_versions_response_api_version_t *api_keys; /* supported APIs */
    int32_t api_keys_count;                           /* never negative */
    int32_t throttle_time_ms;                         /* quota throttle delay in ms, 0 if none */
    gr_api_versions_response_supported_feature_key_t
        *supported_features;          /* features this broker can run */
    int32_t supported_features_count; /* never negative */
    int64_t finalized_features_epoch; /* epoch of finalized features, -1 unknown */
    gr_api_versions_response_finalized_feature_key_t
        *finalized_features;          /* feature levels agreed for the whole cluster */
    int32_t finalized_features_count; /* never negative */
    bool zk_migration_ready;          /* KRaft controller ready for ZK migration */
} gr_api_versions_response_t;

/* Set every field to its schema default (nested structs too). */
void gr_api_versions_response_api_version_init(gr_api_versions_response_api_version_t *out);
void gr_api_versions_response_supported_feature_key_init(
    gr_api_versions_response_supported_feature_key_t *out);
void gr_api_versions_response_finalized_feature_key_init(
    gr_api_versions_response_finalized_feature_key_t *out);
void gr_api_versions_response_init(gr_api_versions_response_t *out);
/* Returns 0 or a negative errno; strings point into r's buffer, arrays into a. */
int gr_api_versions_response_decode(gr_reader_t *r, int16_t v, gr_arena_t *a,
                                    gr_api_versions_response_t *out);
/* Returns 0, or -EINVAL if in holds what version v cannot carry. */
int gr_api_versions_response_encode(gr_writer_t *w, int16_t v,
                                    const gr_api_versions_response_t *in);
size_t gr_api_versions_response_size(int16_t v, const gr_api_versions_response_t *in);
void gr_api_versions_response_dump(gr_writer_t *t, int16_t v, const gr_api_versions_response_t *in);
/* fn(ctx, code) for every error code in, at version v. */
void gr_api_versions_response_errors(int16_t v, const gr_api_versions_response_t *in,
                                     gr_error_code_fn *fn, void *ctx);
extern const gr_codec_desc_t gr_api_versions_response_desc;

#endif
