/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compression codecs of Kafka record batches (attributes bits 0-2):
 * gzip, snappy, lz4 and zstd, in the stream formats Kafka's clients write.
 *
 *   gzip    a gzip stream (RFC 1952); several concatenated members accepted.
 *   snappy  the xerial framing Java clients write (magic 0x82 "SNAPPY" 0,
 *           int32 version, int32 compatible version, then blocks of int32
 *           length + raw snappy); input without that magic is one raw snappy
 *           block, as librdkafka writes. We write the xerial framing, which
 *           every client reads.
 *   lz4     the LZ4 frame format; we write independent 64 KiB blocks, the
 *           only kind Kafka's Java consumer reads.
 *   zstd    zstd frames, decoded as a stream because clients may omit the
 *           content size.
 *
 * Decompression is always bounded by the caller's max_out, so a small batch
 * cannot expand into unbounded memory (zip bombs). Stateless: every call
 * owns its codec contexts.
 */
#ifndef GR_PROTOCOL_COMPRESS_H
#define GR_PROTOCOL_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "writer.h"

typedef enum gr_compression {
    GR_COMPRESSION_NONE = 0,
    GR_COMPRESSION_GZIP = 1,
    GR_COMPRESSION_SNAPPY = 2,
    GR_COMPRESSION_LZ4 = 3,
    GR_COMPRESSION_ZSTD = 4,
} gr_compression_t;

/* Asks gr_compress_level() for the codec's default level (Kafka's defaults). */
#define GR_COMPRESS_LEVEL_DEFAULT (-1000)

/* Kafka's default levels (compression.gzip/lz4/zstd.level). */
#define GR_COMPRESS_GZIP_LEVEL_DEFAULT 6
#define GR_COMPRESS_LZ4_LEVEL_DEFAULT  9
#define GR_COMPRESS_ZSTD_LEVEL_DEFAULT 3

/* Block size of our xerial snappy framing (as Java's SnappyOutputStream). */
#define GR_SNAPPY_XERIAL_BLOCK_SIZE (32 * 1024)

/* The codec's name as in compression.type ("gzip"), or NULL if unknown. */
const char *gr_compression_name(gr_compression_t codec);

/*
 * Compresses len bytes at in with codec at its default level and appends the
 * result to out. GR_COMPRESSION_NONE appends the bytes unchanged.
 * Returns 0, -ENOTSUP for an unknown codec, -ENOMEM, or -EIO if the library
 * fails. On error out may hold a partial append and has its error set only
 * for -ENOMEM from the writer.
 */
int gr_compress(gr_compression_t codec, const uint8_t *in, size_t len, gr_writer_t *out);

/*
 * As gr_compress() with a codec level: gzip 1..9, lz4 1..12 (above 2 is
 * LZ4-HC), zstd as libzstd accepts; GR_COMPRESS_LEVEL_DEFAULT for Kafka's
 * default; ignored for snappy and none. Returns as gr_compress(), and
 * -EINVAL for a level outside the codec's range.
 */
int gr_compress_level(gr_compression_t codec, int level, const uint8_t *in, size_t len,
                      gr_writer_t *out);

/*
 * Decompresses len bytes at in with codec into a new buffer of at most
 * max_out bytes.
 * Returns 0 with *out (malloc'd, owned by the caller, never NULL on success,
 * free() it) and *out_len set; -EBADMSG for corrupt or truncated input,
 * -EMSGSIZE if the output would exceed max_out, -ENOTSUP for an unknown
 * codec, -ENOMEM. On error *out is NULL.
 */
int gr_decompress(gr_compression_t codec, const uint8_t *in, size_t len, size_t max_out,
                  uint8_t **out, size_t *out_len);

#endif
