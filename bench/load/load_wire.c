/* SPDX-License-Identifier: Apache-2.0 */
/*
 * load_wire: blocking request/response plumbing of the load generators (see
 * load_wire.h). One request at a time per call; codec_load's pipelined
 * produce writes its own prebuilt frames with load_wire_write_all and reads
 * the answers in order with load_wire_response.
 */
#include "load_wire.h"

#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gen/codec_registry.h"
#include "gen/headers.h"

static int load_wire_connect(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int fd;

    if (!colon || (size_t)(colon - hostport) >= sizeof(host))
        return -EINVAL;
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -EHOSTUNREACH;
    fd = socket(res->ai_family, SOCK_STREAM, 0);
    if (fd < 0)
        fd = -errno;
    else if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        close(fd);
        fd = -errno;
    }
    freeaddrinfo(res);
    return fd;
}

int load_wire_open(load_wire_t *w, const char *hostport)
{
    memset(w, 0, sizeof(*w));
    gr_arena_init(&w->arena);
    w->fd = load_wire_connect(hostport);
    return w->fd < 0 ? w->fd : 0;
}

void load_wire_close(load_wire_t *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    gr_arena_fini(&w->arena);
    free(w->buf);
    w->buf = NULL;
    w->cap = 0;
}

int load_wire_write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t wr = write(fd, p, n);
        if (wr < 0 && errno == EINTR)
            continue;
        if (wr <= 0)
            return -EIO;
        p += wr;
        n -= (size_t)wr;
    }
    return 0;
}

static int load_wire_read_all(int fd, uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -EIO;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static bool load_wire_flexible(const gr_api_desc_t *api, int16_t version)
{
    return api->flexible_min != GR_VERSION_NONE && version >= api->flexible_min;
}

int load_wire_frame(gr_writer_t *out, int16_t key, int16_t version, int32_t correlation,
                    const void *msg)
{
    const gr_api_desc_t *api = gr_api_find(key);
    gr_request_header_t h;
    size_t size_pos;

    if (!api)
        return -EINVAL;
    size_pos = gr_write_reserve(out, 4);
    gr_request_header_init(&h);
    h.request_api_key = key;
    h.request_api_version = version;
    h.correlation_id = correlation;
    h.client_id = gr_str(LOAD_WIRE_CLIENT_ID);
    gr_request_header_encode(out, load_wire_flexible(api, version) ? 2 : 1, &h);
    if (api->request->encode(out, version, msg) != 0 || out->err)
        return -EINVAL;
    gr_writer_put_int32(out, size_pos, (int32_t)(out->len - size_pos - 4));
    return 0;
}

int load_wire_response(load_wire_t *w, int16_t key, int16_t version, int32_t correlation,
                       void *resp)
{
    const gr_api_desc_t *api = gr_api_find(key);
    gr_response_header_t rh;
    uint8_t size_buf[4];
    uint32_t size;
    gr_reader_t r;

    if (!api)
        return -EINVAL;
    if (load_wire_read_all(w->fd, size_buf, 4) != 0)
        return -EIO;
    size = (uint32_t)size_buf[0] << 24 | (uint32_t)size_buf[1] << 16 | (uint32_t)size_buf[2] << 8 |
           size_buf[3];
    if (size > LOAD_WIRE_MAX_RESPONSE)
        return -EMSGSIZE;
    if (size > w->cap) {
        uint8_t *bigger = realloc(w->buf, size);
        if (!bigger)
            return -ENOMEM;
        w->buf = bigger;
        w->cap = size;
    }
    if (load_wire_read_all(w->fd, w->buf, size) != 0)
        return -EIO;
    gr_arena_reset(&w->arena);
    gr_reader_init(&r, w->buf, size);
    if (gr_response_header_decode(&r, load_wire_flexible(api, version) ? 1 : 0, &w->arena, &rh) !=
            0 ||
        rh.correlation_id != correlation)
        return -EBADMSG;
    return api->response->decode(&r, version, &w->arena, resp) == 0 ? 0 : -EBADMSG;
}

int load_wire_call(load_wire_t *w, int16_t key, int16_t version, const void *msg, void *resp)
{
    gr_writer_t out;
    int rc;

    gr_writer_init(&out);
    rc = load_wire_frame(&out, key, version, ++w->correlation, msg);
    if (rc == 0)
        rc = load_wire_write_all(w->fd, out.buf, out.len);
    gr_writer_fini(&out);
    return rc == 0 ? load_wire_response(w, key, version, w->correlation, resp) : rc;
}
