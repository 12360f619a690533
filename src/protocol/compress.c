/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Batch compression codecs: see compress.h.
 *
 * Compression reserves the codec's worst-case bound in the writer, lets the
 * library write there, then gives back the unused tail by lowering w->len
 * (the reserved bytes are the writer's last ones, with no file hole after
 * them, so this is safe).
 *
 * Decompression writes into an out_buf_t that grows by doubling up to
 * max_out + 1 bytes: holding one byte more than allowed is how an oversized
 * result is told apart from one that is exactly max_out bytes long.
 */
#include "compress.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define GZIP_WINDOW_BITS      15
#define GZIP_WRAPPER          16 /* added to windowBits: gzip, not zlib, wrapper */
#define GZIP_AUTO_WRAPPER     32 /* added to windowBits: accept gzip or zlib */
#define GZIP_MEM_LEVEL        8
#define GZIP_MAGIC0           0x1f
#define GZIP_MAGIC1           0x8b
#define LZ4_LEVEL_MAX         17 /* Kafka's compression.lz4.level range is 1..17 */
#define OUT_BUF_MIN_CAP       1024
#define OUT_BUF_EXPANSION_EST 4 /* first guess of the output/input ratio */

/* xerial snappy framing. */
#define XERIAL_MAGIC_LEN      8
#define XERIAL_HEADER_LEN     16 /* magic, int32 version, int32 compatible version */
#define XERIAL_VERSION        1
#define XERIAL_COMPAT         1
#define XERIAL_BLOCK_LEN_SIZE 4

static const uint8_t xerial_magic[XERIAL_MAGIC_LEN] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};

const char *gr_compression_name(gr_compression_t codec)
{
    switch (codec) {
    case GR_COMPRESSION_NONE:
        return "none";
    case GR_COMPRESSION_GZIP:
        return "gzip";
    case GR_COMPRESSION_SNAPPY:
        return "snappy";
    case GR_COMPRESSION_LZ4:
        return "lz4";
    case GR_COMPRESSION_ZSTD:
        return "zstd";
    }
    return NULL;
}

/* ---- compression ------------------------------------------------------- */

/*
 * Reserves bound bytes at the end of w and returns a pointer to them (valid
 * until the next write), or NULL with w->err set.
 */
static uint8_t *reserve(gr_writer_t *w, size_t bound, size_t *pos)
{
    *pos = gr_write_reserve(w, bound);
    return w->err ? NULL : w->buf + *pos;
}

/* Gives back the unused end of a reservation made by reserve(). */
static void unreserve(gr_writer_t *w, size_t pos, size_t used)
{
    w->len = pos + used;
}

static int compress_gzip(int level, const uint8_t *in, size_t len, gr_writer_t *w)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, level, Z_DEFLATED, GZIP_WINDOW_BITS + GZIP_WRAPPER, GZIP_MEM_LEVEL,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return -ENOMEM;
    size_t bound = deflateBound(&zs, (uLong)len);
    size_t pos;
    uint8_t *dst = reserve(w, bound, &pos);
    int err = 0;
    if (!dst) {
        err = w->err;
        goto fail;
    }
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)len;
    zs.next_out = dst;
    zs.avail_out = (uInt)bound;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
        unreserve(w, pos, 0);
        err = -EIO;
        goto fail;
    }
    unreserve(w, pos, (size_t)zs.total_out);
fail:
    deflateEnd(&zs);
    return err;
}

/*
 * Writes Java's xerial framing: header, then blocks of int32 length + raw
 * snappy. Empty input still gets one (empty) block: librdkafka only takes a
 * stream for xerial when it is longer than the header plus a length word.
 */
static int compress_snappy(const uint8_t *in, size_t len, gr_writer_t *w)
{
    gr_write_raw(w, xerial_magic, sizeof xerial_magic);
    gr_write_int32(w, XERIAL_VERSION);
    gr_write_int32(w, XERIAL_COMPAT);
    size_t off = 0;
    do {
        size_t n =
            len - off < GR_SNAPPY_XERIAL_BLOCK_SIZE ? len - off : GR_SNAPPY_XERIAL_BLOCK_SIZE;
        size_t bound = snappy_max_compressed_length(n);
        size_t pos;
        uint8_t *dst = reserve(w, XERIAL_BLOCK_LEN_SIZE + bound, &pos);
        if (!dst)
            break;
        size_t clen = bound;
        const char *src = n ? (const char *)in + off : ""; /* in may be NULL when empty */
        if (snappy_compress(src, n, (char *)dst + XERIAL_BLOCK_LEN_SIZE, &clen) != SNAPPY_OK) {
            unreserve(w, pos, 0);
            return -EIO;
        }
        gr_writer_put_int32(w, pos, (int32_t)clen);
        unreserve(w, pos, XERIAL_BLOCK_LEN_SIZE + clen);
        off += n;
    } while (off < len);
    return w->err;
}

static int compress_lz4(int level, const uint8_t *in, size_t len, gr_writer_t *w)
{
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    /* Java's consumer only reads independent blocks; 64 KiB is what it writes. */
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    prefs.compressionLevel = level;
    size_t bound = LZ4F_compressFrameBound(len, &prefs);
    size_t pos;
    uint8_t *dst = reserve(w, bound, &pos);
    if (!dst)
        return w->err;
    size_t n = LZ4F_compressFrame(dst, bound, in, len, &prefs);
    if (LZ4F_isError(n)) {
        unreserve(w, pos, 0);
        return -EIO;
    }
    unreserve(w, pos, n);
    return 0;
}

static int compress_zstd(int level, const uint8_t *in, size_t len, gr_writer_t *w)
{
    size_t bound = ZSTD_compressBound(len);
    size_t pos;
    uint8_t *dst = reserve(w, bound, &pos);
    if (!dst)
        return w->err;
    size_t n = ZSTD_compress(dst, bound, in, len, level);
    if (ZSTD_isError(n)) {
        unreserve(w, pos, 0);
        return ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
    }
    unreserve(w, pos, n);
    return 0;
}

int gr_compress_level(gr_compression_t codec, int level, const uint8_t *in, size_t len,
                      gr_writer_t *out)
{
    if (out->err)
        return out->err;
    if (len > INT32_MAX)
        return -EMSGSIZE; /* larger than any batch; also keeps zlib's uInt safe */
    bool dflt = level == GR_COMPRESS_LEVEL_DEFAULT;
    switch (codec) {
    case GR_COMPRESSION_NONE:
        gr_write_raw(out, in, len);
        return out->err;
    case GR_COMPRESSION_GZIP:
        if (dflt)
            level = GR_COMPRESS_GZIP_LEVEL_DEFAULT;
        if (level < Z_BEST_SPEED || level > Z_BEST_COMPRESSION)
            return -EINVAL;
        return compress_gzip(level, in, len, out);
    case GR_COMPRESSION_SNAPPY:
        return compress_snappy(in, len, out);
    case GR_COMPRESSION_LZ4:
        if (dflt)
            level = GR_COMPRESS_LZ4_LEVEL_DEFAULT;
        if (level < 1 || level > LZ4_LEVEL_MAX)
            return -EINVAL;
        return compress_lz4(level, in, len, out);
    case GR_COMPRESSION_ZSTD:
        if (dflt)
            level = GR_COMPRESS_ZSTD_LEVEL_DEFAULT;
        if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
            return -EINVAL;
        return compress_zstd(level, in, len, out);
    }
    return -ENOTSUP;
}

int gr_compress(gr_compression_t codec, const uint8_t *in, size_t len, gr_writer_t *out)
{
    return gr_compress_level(codec, GR_COMPRESS_LEVEL_DEFAULT, in, len, out);
}

/* ---- decompression ----------------------------------------------------- */

typedef struct out_buf {
    uint8_t *p;
    size_t len;
    size_t cap;
    size_t limit; /* max_out + 1: reaching it means the output is too large */
} out_buf_t;

static void out_buf_init(out_buf_t *o, size_t max_out)
{
    memset(o, 0, sizeof *o);
    o->limit = max_out == SIZE_MAX ? SIZE_MAX : max_out + 1;
}

/*
 * Makes the capacity at least want bytes (at most limit), growing by
 * doubling. Returns 0, -EMSGSIZE if want exceeds the limit, -ENOMEM.
 */
static int out_buf_reserve(out_buf_t *o, size_t want)
{
    if (want <= o->cap)
        return 0;
    if (want > o->limit)
        return -EMSGSIZE;
    size_t cap = o->cap ? o->cap : OUT_BUF_MIN_CAP;
    while (cap < want)
        cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
    if (cap > o->limit)
        cap = o->limit;
    uint8_t *p = realloc(o->p, cap);
    if (!p)
        return -ENOMEM;
    o->p = p;
    o->cap = cap;
    return 0;
}

/* Ensures at least one free byte for a streaming decoder. */
static int out_buf_room(out_buf_t *o)
{
    if (o->len < o->cap)
        return 0;
    return out_buf_reserve(o, o->len == SIZE_MAX ? SIZE_MAX : o->len + 1);
}

/* First capacity for a stream of unknown output size. */
static int out_buf_guess(out_buf_t *o, size_t in_len)
{
    size_t guess =
        in_len > SIZE_MAX / OUT_BUF_EXPANSION_EST ? SIZE_MAX : in_len * OUT_BUF_EXPANSION_EST;
    if (guess < OUT_BUF_MIN_CAP)
        guess = OUT_BUF_MIN_CAP;
    if (guess > o->limit)
        guess = o->limit;
    return out_buf_reserve(o, guess);
}

/* Hands the result to the caller, or frees it on error. */
static int out_buf_finish(out_buf_t *o, int err, uint8_t **out, size_t *out_len)
{
    if (!err && o->len >= o->limit)
        err = -EMSGSIZE;
    if (!err && !o->p) {
        o->p = malloc(1); /* success never returns NULL, even for no bytes */
        if (!o->p)
            err = -ENOMEM;
    }
    if (err) {
        free(o->p);
        *out = NULL;
        *out_len = 0;
        return err;
    }
    *out = o->p;
    *out_len = o->len;
    return 0;
}

static int decompress_gzip(const uint8_t *in, size_t len, out_buf_t *o)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, GZIP_WINDOW_BITS + GZIP_AUTO_WRAPPER) != Z_OK)
        return -ENOMEM;
    int err = out_buf_guess(o, len);
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)len; /* len <= INT32_MAX, checked by the caller */
    while (!err) {
        err = out_buf_room(o);
        if (err)
            break;
        size_t avail = o->cap - o->len;
        if (avail > UINT_MAX)
            avail = UINT_MAX;
        zs.next_out = o->p + o->len;
        zs.avail_out = (uInt)avail;
        int rc = inflate(&zs, Z_NO_FLUSH);
        o->len += avail - zs.avail_out;
        if (rc == Z_STREAM_END) {
            if (zs.avail_in == 0)
                break;
            /* Another gzip member may follow, as gzip(1) and Java allow. */
            if (zs.avail_in < 2 || zs.next_in[0] != GZIP_MAGIC0 || zs.next_in[1] != GZIP_MAGIC1) {
                err = -EBADMSG;
                break;
            }
            if (inflateReset(&zs) != Z_OK)
                err = -EBADMSG;
        } else if (rc == Z_MEM_ERROR) {
            err = -ENOMEM;
        } else if (rc == Z_BUF_ERROR) {
            if (zs.avail_out != 0) /* all input used, stream not finished */
                err = -EBADMSG;
        } else if (rc != Z_OK) {
            err = -EBADMSG;
        }
    }
    inflateEnd(&zs);
    return err;
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One raw snappy block appended to o. */
static int snappy_block(const uint8_t *in, size_t len, out_buf_t *o)
{
    size_t n;
    if (snappy_uncompressed_length((const char *)in, len, &n) != SNAPPY_OK)
        return -EBADMSG;
    if (n > o->limit - 1 - o->len)
        return -EMSGSIZE;
    int err = out_buf_reserve(o, o->len + n);
    if (err)
        return err;
    if (n == 0)
        return snappy_validate_compressed_buffer((const char *)in, len) == SNAPPY_OK ? 0 : -EBADMSG;
    if (snappy_uncompress((const char *)in, len, (char *)o->p + o->len, &n) != SNAPPY_OK)
        return -EBADMSG;
    o->len += n;
    return 0;
}

static int decompress_snappy(const uint8_t *in, size_t len, out_buf_t *o)
{
    if (len < XERIAL_MAGIC_LEN || memcmp(in, xerial_magic, XERIAL_MAGIC_LEN) != 0)
        return snappy_block(in, len, o);
    if (len < XERIAL_HEADER_LEN)
        return -EBADMSG;
    /* The version words are not checked: every version so far frames alike. */
    size_t pos = XERIAL_HEADER_LEN;
    while (pos < len) {
        if (len - pos < XERIAL_BLOCK_LEN_SIZE)
            return -EBADMSG;
        uint32_t blen = load_be32(in + pos);
        pos += XERIAL_BLOCK_LEN_SIZE;
        if (blen > len - pos)
            return -EBADMSG;
        int err = snappy_block(in + pos, blen, o);
        if (err)
            return err;
        pos += blen;
    }
    return 0;
}

static int decompress_lz4(const uint8_t *in, size_t len, out_buf_t *o)
{
    LZ4F_dctx *dctx;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
        return -ENOMEM;
    int err = out_buf_guess(o, len);
    size_t pos = 0;
    size_t hint = 1; /* 0 once a frame has ended and everything is flushed */
    while (!err && (pos < len || hint != 0)) {
        err = out_buf_room(o);
        if (err)
            break;
        size_t dst_len = o->cap - o->len;
        size_t src_len = len - pos;
        hint = LZ4F_decompress(dctx, o->p + o->len, &dst_len, in + pos, &src_len, NULL);
        if (LZ4F_isError(hint)) {
            err = -EBADMSG;
            break;
        }
        pos += src_len;
        o->len += dst_len;
        /* No progress with room to write: the input ends inside a frame. */
        if (src_len == 0 && dst_len == 0 && hint != 0)
            err = -EBADMSG;
    }
    LZ4F_freeDecompressionContext(dctx);
    return err;
}

static int decompress_zstd(const uint8_t *in, size_t len, out_buf_t *o)
{
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (!dctx)
        return -ENOMEM;
    int err = out_buf_guess(o, len);
    ZSTD_inBuffer ib = {in, len, 0};
    size_t hint = 1; /* 0 once a frame is fully decoded and flushed */
    while (!err && (ib.pos < ib.size || hint != 0)) {
        err = out_buf_room(o);
        if (err)
            break;
        ZSTD_outBuffer ob = {o->p + o->len, o->cap - o->len, 0};
        size_t before = ib.pos;
        hint = ZSTD_decompressStream(dctx, &ob, &ib);
        if (ZSTD_isError(hint)) {
            err = ZSTD_getErrorCode(hint) == ZSTD_error_memory_allocation ? -ENOMEM : -EBADMSG;
            break;
        }
        o->len += ob.pos;
        if (ob.pos == 0 && ib.pos == before && hint != 0)
            err = -EBADMSG;
    }
    ZSTD_freeDCtx(dctx);
    return err;
}

int gr_decompress(gr_compression_t codec, const uint8_t *in, size_t len, size_t max_out,
                  uint8_t **out, size_t *out_len)
{
    out_buf_t o;
    out_buf_init(&o, max_out);
    int err;
    if (len > INT32_MAX) {
        err = -EMSGSIZE;
        return out_buf_finish(&o, err, out, out_len);
    }
    switch (codec) {
    case GR_COMPRESSION_NONE:
        err = len > max_out ? -EMSGSIZE : out_buf_reserve(&o, len);
        if (!err && len) {
            memcpy(o.p, in, len);
            o.len = len;
        }
        break;
    case GR_COMPRESSION_GZIP:
        err = decompress_gzip(in, len, &o);
        break;
    case GR_COMPRESSION_SNAPPY:
        err = decompress_snappy(in, len, &o);
        break;
    case GR_COMPRESSION_LZ4:
        err = decompress_lz4(in, len, &o);
        break;
    case GR_COMPRESSION_ZSTD:
        err = decompress_zstd(in, len, &o);
        break;
    default:
        err = -ENOTSUP;
        break;
    }
    return out_buf_finish(&o, err, out, out_len);
}
