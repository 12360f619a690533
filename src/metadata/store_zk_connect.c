/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Start-up of the ZooKeeper store: checking zookeeper.connect and, before any
 * session is opened, making sure the ensemble answers and the chroot exists.
 * Sessions connect with the chroot in their connect string, and the C client
 * refuses to work under a chroot that does not exist, so it is created first
 * over a short-lived connection without it (one component at a time, a
 * component that already exists being fine: brokers may race to create it).
 *
 * Runs on: the thread calling gr_store_zk_open(), which it blocks (bounded by
 * zookeeper.connection.timeout.ms for the connection itself). The boot
 * watcher runs on the short-lived handle's completion thread.
 */
#include "metadata/store_zk_int.h"
#include "metadata/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A port is 1..65535: at most five digits. */
#define PORT_DIGITS_MAX 5

/* Checks "host:port" in [s, end). */
static bool host_port_valid(const char *s, const char *end)
{
    const char *colon = NULL;

    for (const char *p = s; p < end; p++)
        if (*p == ':')
            colon = p; /* the last one: "[::1]:2181" */
    if (colon == NULL || colon == s || end - colon - 1 < 1 || end - colon - 1 > PORT_DIGITS_MAX)
        return false;
    long port = 0;
    for (const char *p = colon + 1; p < end; p++) {
        if (*p < '0' || *p > '9')
            return false;
        port = port * 10 + (*p - '0');
    }
    return port >= 1 && port <= 65535;
}

int zk_connect_parse(const char *connect, size_t *chroot_at)
{
    if (connect == NULL || connect[0] == '\0')
        return -EINVAL;
    const char *slash = strchr(connect, '/');
    const char *hosts_end = slash != NULL ? slash : connect + strlen(connect);

    for (const char *p = connect; p <= hosts_end;) {
        const char *comma = memchr(p, ',', (size_t)(hosts_end - p));
        const char *end = comma != NULL ? comma : hosts_end;
        if (!host_port_valid(p, end))
            return -EINVAL;
        p = end + 1;
    }
    if (slash != NULL && gr_store_path_check(slash) < 0)
        return -EINVAL;
    *chroot_at = (size_t)(hosts_end - connect);
    return 0;
}

/* What the boot watcher saw: the handle's latest session state. */
typedef struct boot {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int state;
} boot_t;

static void boot_watcher(zhandle_t *zh, int type, int state, const char *path, void *context)
{
    boot_t *b = context;
    (void)zh;
    (void)path;

    if (type != ZOO_SESSION_EVENT)
        return;
    pthread_mutex_lock(&b->lock);
    b->state = state;
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
}

/* Waits until b reports CONNECTED or timeout_ms pass. Returns true when connected. */
static bool boot_wait_connected(boot_t *b, int32_t timeout_ms)
{
    struct timespec deadline;
    bool connected;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&b->lock);
    while (b->state != ZOO_CONNECTED_STATE) {
        if (pthread_cond_timedwait(&b->changed, &b->lock, &deadline) == ETIMEDOUT)
            break;
    }
    connected = b->state == ZOO_CONNECTED_STATE;
    pthread_mutex_unlock(&b->lock);
    return connected;
}

/* Creates each component of chroot ("/a/b": "/a", then "/a/b"). Returns 0 or -EIO. */
static int create_chroot(zhandle_t *zh, const char *chroot, const gr_logger_t *log)
{
    char path[GR_STORE_PATH_MAX + 1];
    size_t len = strlen(chroot);

    for (size_t i = 1; i <= len; i++) {
        if (i < len && chroot[i] != '/')
            continue;
        memcpy(path, chroot, i);
        path[i] = '\0';
        int zrc = zoo_create(zh, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
        if (zrc != ZOK && zrc != ZNODEEXISTS) {
            gr_logf(log, GR_LOG_ERROR, "zookeeper", "cannot create chroot %s: %s", path,
                    zerror(zrc));
            return -EIO;
        }
    }
    return 0;
}

static int boot_init(boot_t *b)
{
    pthread_condattr_t attr;

    b->state = 0;
    if (pthread_condattr_init(&attr) != 0)
        return -ENOMEM;
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&b->changed, &attr);
    pthread_condattr_destroy(&attr);
    if (rc != 0)
        return -rc;
    rc = pthread_mutex_init(&b->lock, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&b->changed);
        return -rc;
    }
    return 0;
}

int zk_connect_bootstrap(const gr_store_zk_config_t *cfg, size_t chroot_at, const gr_logger_t *log)
{
    const char *chroot = cfg->connect + chroot_at;
    boot_t b;
    int rc = boot_init(&b);

    if (rc < 0)
        return rc;
    char *hosts = strndup(cfg->connect, chroot_at);
    if (hosts == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    zhandle_t *zh = zookeeper_init(hosts, boot_watcher, cfg->session_timeout_ms, NULL, &b, 0);
    if (zh == NULL) {
        rc = errno == ENOMEM ? -ENOMEM : -EINVAL;
        gr_logf(log, GR_LOG_ERROR, "zookeeper", "cannot use zookeeper.connect %s: %s", cfg->connect,
                strerror(errno));
        goto out;
    }
    if (!boot_wait_connected(&b, cfg->connection_timeout_ms)) {
        rc = -ETIMEDOUT;
        gr_logf(log, GR_LOG_ERROR, "zookeeper",
                "could not connect to ZooKeeper at %s within %" PRId32 " ms "
                "(zookeeper.connection.timeout.ms)",
                hosts, cfg->connection_timeout_ms);
    } else if (chroot[0] != '\0' && strcmp(chroot, "/") != 0) {
        rc = create_chroot(zh, chroot, log);
    }
    /* Still connected to the handle: b outlives every watcher call, which ends here. */
    zookeeper_close(zh);
out:
    free(hosts);
    pthread_mutex_destroy(&b.lock);
    pthread_cond_destroy(&b.changed);
    return rc;
}
