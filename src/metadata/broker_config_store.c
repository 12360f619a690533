/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dynamic broker configs: see broker_config_store.h. The static value of
 * each key Gregor applies live is saved on the first change, so that a key
 * removed from both levels goes back to what the file said.
 *
 * Runs on: loop thread.
 */
#include "metadata/broker_config_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/log.h"
#include "metadata/config_entity.h"
#include "metadata/password_codec.h"
#include "metadata/store.h"
#include "metadata/topics.h"
#include "metadata/zk_docs.h"
#include "metadata/zk_json.h"

#define BROKERS_PATH GR_ZK_CONFIG_PATH "/" GR_BROKER_CONFIG_ENTITY_TYPE
#define NAME_MAX_LEN 16 /* "<default>" or a broker id */
#define ERR_MAX      256

/*
 * The keys Gregor applies live: the primary broker synonym of every topic
 * config (Kafka's DynamicLogConfig; topics without an override follow it
 * through gr_topic_settings_compute), except those below that Kafka keeps
 * static or that have no effect in Gregor, then the keys read per use.
 */
static const char *const applied_others[] = {"max.connections",
                                             "max.connections.per.ip",
                                             "max.connections.per.ip.overrides",
                                             "max.connection.creation.rate",
                                             "producer.id.expiration.ms",
                                             "log.cleaner.backoff.ms",
                                             "log.cleaner.dedupe.buffer.size",
                                             "log.cleaner.io.buffer.load.factor",
                                             "log.cleaner.threads",
                                             "log.cleaner.io.max.bytes.per.second",
                                             "log.cleaner.io.buffer.size",
                                             "num.replica.fetchers",
                                             NULL};

/* Keys Kafka changes live that mean nothing in Gregor: refused with why. */
static const struct {
    const char *key;
    const char *why;
} no_effect[] = {
    {"compression.gzip.level", "Gregor compresses at each codec's default level"},
    {"compression.lz4.level", "Gregor compresses at each codec's default level"},
    {"compression.zstd.level", "Gregor compresses at each codec's default level"},
    {"log.roll.jitter.ms", "Gregor rolls segments without jitter"},
    {"log.preallocate", "Gregor does not preallocate segment files"},
    {"log.message.downconversion.enable", "Gregor never down-converts fetched records"},
    {"log.local.retention.ms", "Gregor has no tiered storage"},
    {"log.local.retention.bytes", "Gregor has no tiered storage"},
    {"remote.log.manager.task.interval.ms", "Gregor has no tiered storage"},
    {"num.io.threads", "Gregor runs one event loop: num.io.threads has no effect"},
    {"num.network.threads", "Gregor runs one event loop: num.network.threads has no effect"},
    {"background.threads", "Gregor runs one event loop: background.threads has no effect"},
    {"num.recovery.threads.per.data.dir",
     "Gregor recovers logs on its one event loop: num.recovery.threads.per.data.dir has no "
     "effect"},
    {"metric.reporters", "Gregor loads no Java classes: its metrics are served over HTTP"},
    {"principal.builder.class", "Gregor loads no Java classes"},
    {"leader.replication.throttled.rate", "Gregor does not throttle replication"},
    {"follower.replication.throttled.rate", "Gregor does not throttle replication"},
    {"listeners", "Gregor opens its listeners at start: change them in the file and restart"},
    {"advertised.listeners",
     "Gregor registers its listeners at start: change them in the file and restart"},
    {"listener.security.protocol.map",
     "Gregor opens its listeners at start: change them in the file and restart"},
};

/* The topic def's broker key when Gregor applies it live, else NULL. */
static const char *topic_key(const gr_topic_config_def_t *def)
{
    const char *key = def->synonyms[0];
    /* Kafka keeps it static: every broker must support a version first. */
    if (!key || strcmp(def->name, "message.format.version") == 0 || gr_config_find(key) < 0 ||
        gr_broker_dynamic_refusal(key))
        return NULL;
    return key;
}

/*
 * Kafka 3.8's other live keys (DynamicBrokerConfig's reconfigurables that
 * are not topic-config synonyms; those are checked through the topic table).
 */
static const char *const kafka_dynamic_others[] = {"log.cleaner.threads",
                                                   "log.cleaner.io.max.bytes.per.second",
                                                   "log.cleaner.io.buffer.size",
                                                   "num.io.threads",
                                                   "num.network.threads",
                                                   "num.replica.fetchers",
                                                   "num.recovery.threads.per.data.dir",
                                                   "background.threads",
                                                   "metric.reporters",
                                                   "transaction.partition.verification.enable",
                                                   "advertised.listeners",
                                                   "listener.security.protocol.map",
                                                   "listeners",
                                                   "sasl.enabled.mechanisms",
                                                   "sasl.jaas.config",
                                                   "principal.builder.class",
                                                   "remote.log.manager.task.interval.ms",
                                                   "follower.replication.throttled.rate",
                                                   "leader.replication.throttled.rate",
                                                   "replica.alter.log.dirs.io.max.bytes.per.second",
                                                   NULL};

/* What a broker keeps: both levels and the static values they hide. */
struct gr_broker_dynamic {
    gr_broker_dynamic_set_t defaults; /* /config/brokers/<default> */
    gr_broker_dynamic_set_t mine;     /* /config/brokers/<this id> */
    char *static_text[GR_BROKER_DYNAMIC_KEYS];
    uint8_t static_source[GR_BROKER_DYNAMIC_KEYS];
    gr_listener_configs_t listeners; /* this broker's listener SSL keys, passwords in clear */
    bool mine_read;                  /* this broker's document was read once (or failed) */
    /*
     * Writes of this broker in flight per level ([1]: <default>): a read
     * meanwhile may return an older document than the one applied here, so
     * reads are dropped until the last write is over, then done again.
     */
    int writing[2];
};

/*
 * Every key of the table in index order into names; returns how many are
 * there (at most the capacity), *total (if not NULL) how many there are in
 * all (a unit test checks that they fit).
 */
static int key_names(const char *names[GR_BROKER_DYNAMIC_KEYS], int *total)
{
    int n = 0;
    for (size_t t = 0; t < gr_topic_config_def_count(); t++) {
        const char *key = topic_key(gr_topic_config_def_at(t));
        if (key && n < GR_BROKER_DYNAMIC_KEYS)
            names[n] = key;
        n += key != NULL;
    }
    for (int o = 0; applied_others[o]; o++, n++)
        if (n < GR_BROKER_DYNAMIC_KEYS)
            names[n] = applied_others[o];
    if (total)
        *total = n;
    return n < GR_BROKER_DYNAMIC_KEYS ? n : GR_BROKER_DYNAMIC_KEYS;
}

int gr_broker_dynamic_count(void)
{
    const char *names[GR_BROKER_DYNAMIC_KEYS];
    int total;
    (void)key_names(names, &total);
    return total;
}

const char *gr_broker_dynamic_name(int i)
{
    const char *names[GR_BROKER_DYNAMIC_KEYS];
    int n = key_names(names, NULL);
    return i >= 0 && i < n ? names[i] : NULL;
}

/* Whether key may be one of the table (a cheap test: most keys asked about are not). */
static bool maybe_dynamic(const char *key)
{
    for (size_t t = 0; t < gr_topic_config_def_count(); t++) {
        const char *primary = gr_topic_config_def_at(t)->synonyms[0];
        if (primary && strcmp(primary, key) == 0)
            return true;
    }
    for (int o = 0; applied_others[o]; o++)
        if (strcmp(applied_others[o], key) == 0)
            return true;
    return false;
}

int gr_broker_dynamic_find(const char *key)
{
    const char *names[GR_BROKER_DYNAMIC_KEYS];
    int n = maybe_dynamic(key) ? key_names(names, NULL) : 0;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], key) == 0)
            return i;
    return -1;
}

const char *gr_broker_dynamic_refusal(const char *key)
{
    for (size_t i = 0; i < sizeof no_effect / sizeof no_effect[0]; i++)
        if (strcmp(no_effect[i].key, key) == 0)
            return no_effect[i].why;
    return NULL;
}

bool gr_broker_dynamic_kafka_allows(const char *key)
{
    for (size_t i = 0; i < gr_topic_config_def_count(); i++) {
        const gr_topic_config_def_t *def = gr_topic_config_def_at(i);
        /* The primary synonym only, as DynamicLogConfig; never message.format.version. */
        if (def->synonyms[0] && strcmp(def->synonyms[0], key) == 0 &&
            strcmp(def->name, "message.format.version") != 0)
            return true;
    }
    for (int i = 0; kafka_dynamic_others[i]; i++)
        if (strcmp(kafka_dynamic_others[i], key) == 0)
            return true;
    /* Listener-prefixed keys: TLS and SASL settings of a listener. */
    return strncmp(key, "listener.name.", strlen("listener.name.")) == 0 ||
           strncmp(key, "ssl.", strlen("ssl.")) == 0;
}

static void set_clear(gr_broker_dynamic_set_t *s)
{
    for (int i = 0; i < GR_BROKER_DYNAMIC_KEYS; i++) {
        free(s->values[i]);
        s->values[i] = NULL;
    }
}

/* The state, created with the static values saved on first use; NULL when out of memory. */
static struct gr_broker_dynamic *dynamic_of(gr_broker_t *b)
{
    if (b->dynamic)
        return b->dynamic;
    struct gr_broker_dynamic *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    const char *names[GR_BROKER_DYNAMIC_KEYS];
    int n = key_names(names, NULL);
    for (int i = 0; i < n; i++) {
        gr_config_entry_t e;
        gr_config_entry(&b->config, (size_t)gr_config_find(names[i]), &e);
        d->static_source[i] = (uint8_t)e.source;
        if (e.value && !(d->static_text[i] = strdup(e.value))) {
            b->dynamic = d;
            gr_broker_dynamic_free(b);
            return NULL;
        }
    }
    b->dynamic = d;
    return d;
}

void gr_broker_dynamic_free(gr_broker_t *b)
{
    struct gr_broker_dynamic *d = b->dynamic;
    if (!d)
        return;
    set_clear(&d->defaults);
    set_clear(&d->mine);
    gr_listener_configs_clear(&d->listeners);
    for (int i = 0; i < GR_BROKER_DYNAMIC_KEYS; i++)
        free(d->static_text[i]);
    free(d);
    b->dynamic = NULL;
}

const gr_broker_dynamic_set_t *gr_broker_dynamic_level(gr_broker_t *b, bool is_default)
{
    static const gr_broker_dynamic_set_t none = {{NULL}};
    struct gr_broker_dynamic *d = dynamic_of(b);
    return !d ? &none : is_default ? &d->defaults : &d->mine;
}

const gr_listener_configs_t *gr_broker_dynamic_listeners(gr_broker_t *b)
{
    static const gr_listener_configs_t none = {0};
    struct gr_broker_dynamic *d = dynamic_of(b);
    return d ? &d->listeners : &none;
}

const char *gr_broker_dynamic_listener_value(const void *arg, const char *listener, const char *key)
{
    return gr_listener_configs_get(arg, listener, key);
}

/* ---- applying ---- */

static void recompute_topic(gr_topic_t *topic, void *arg)
{
    gr_broker_t *b = arg;
    gr_topic_settings_compute(b, topic);
    for (int32_t i = 0; i < topic->partition_count; i++)
        if (topic->partitions[i].log)
            gr_log_set_config(topic->partitions[i].log, &topic->settings.log);
}

/* Puts each key's winning value into b->config, then every topic follows. */
static void apply_all(gr_broker_t *b, struct gr_broker_dynamic *d)
{
    const char *names[GR_BROKER_DYNAMIC_KEYS];
    int n = key_names(names, NULL);
    for (int i = 0; i < n; i++) {
        const char *key = names[i];
        const char *v = d->mine.values[i];
        gr_config_source_t source = GR_CONFIG_SOURCE_DYNAMIC_BROKER;
        if (!v) {
            v = d->defaults.values[i];
            source = GR_CONFIG_SOURCE_DYNAMIC_DEFAULT;
        }
        if (!v) {
            v = d->static_text[i];
            source = (gr_config_source_t)d->static_source[i];
        }
        char err[ERR_MAX];
        if (!v)
            (void)gr_config_unset(&b->config, key); /* a key of the table */
        else if (gr_config_set(&b->config, key, v, source, NULL, err, sizeof err))
            gr_logf(&b->log, GR_LOG_WARN, "config", "dynamic %s=%s not applied: %s", key, v, err);
    }
    gr_config_resolve_log_times(&b->config);
    if (b->topics)
        gr_topics_foreach(b->topics, recompute_topic, b);
    if (b->on_broker_config_applied)
        b->on_broker_config_applied(b);
}

/* ---- reading ---- */

/* The known keys of a /config/brokers document into s (others ignored). 0, -EINVAL, -ENOMEM. */
static int parse_doc(const char *text, size_t len, gr_broker_dynamic_set_t *s)
{
    int rc = gr_zk_doc_config_known(text, len, gr_broker_dynamic_find, s->values);
    if (rc)
        set_clear(s);
    return rc;
}

typedef struct read_op {
    gr_broker_t *b;
    bool is_default;
    char path[GR_STORE_PATH_MAX + 1];
} read_op_t;

/*
 * This broker's listener SSL keys from its document (NULL: none); the
 * listeners' TLS contexts are built again when they changed. Kafka reads
 * them from this broker's level only: at <default> they are ignored.
 */
static void load_listeners(gr_broker_t *b, struct gr_broker_dynamic *d, const char *text,
                           size_t len, const char *path)
{
    gr_listener_configs_t fresh = {0};
    char bad[GR_STORE_PATH_MAX] = "";
    if (text && gr_listener_configs_parse(&b->config, text, len, &fresh, bad, sizeof bad)) {
        gr_logf(&b->log, GR_LOG_WARN, "config", "%s: listener SSL keys unreadable", path);
        return;
    }
    if (bad[0])
        gr_logf(&b->log, GR_LOG_ERROR, "config",
                "dynamic password config %s could not be decoded (password.encoder.secret "
                "changed? set the old one as password.encoder.old.secret), ignoring",
                bad);
    bool same = gr_listener_configs_equal(&fresh, &d->listeners);
    gr_listener_configs_clear(&d->listeners);
    d->listeners = fresh;
    if (!same && b->on_listener_tls)
        b->on_listener_tls(b, NULL);
}

static void on_data(void *opaque, int rc, const void *data, size_t len, const gr_store_stat_t *stat)
{
    (void)stat;
    read_op_t *op = opaque;
    gr_broker_t *b = op->b;
    struct gr_broker_dynamic *d = rc == GR_STORE_CLOSING ? NULL : dynamic_of(b);
    if (d && !op->is_default)
        d->mine_read = true;
    if (d && d->writing[op->is_default] > 0) {
        /* this broker's own write is newer: read again once it is over */
    } else if (d && (rc == GR_STORE_OK || rc == GR_STORE_NONODE)) {
        gr_broker_dynamic_set_t s = {{NULL}};
        if (rc == GR_STORE_OK && parse_doc(data, len, &s))
            gr_logf(&b->log, GR_LOG_WARN, "config", "%s is unreadable", op->path);
        else {
            gr_broker_dynamic_set_t *level = op->is_default ? &d->defaults : &d->mine;
            set_clear(level);
            *level = s;
            apply_all(b, d);
            if (!op->is_default)
                load_listeners(b, d, rc == GR_STORE_OK ? data : NULL, len, op->path);
        }
    } else if (rc != GR_STORE_CLOSING)
        gr_logf(&b->log, GR_LOG_WARN, "config", "cannot read %s: %s", op->path,
                gr_store_rc_name(rc));
    free(op);
}

static void read_level(gr_broker_t *b, bool is_default)
{
    read_op_t *op = calloc(1, sizeof *op);
    if (!op || !b->store_session)
        goto fail;
    op->b = b;
    op->is_default = is_default;
    if (is_default)
        snprintf(op->path, sizeof op->path, BROKERS_PATH "/" GR_BROKER_CONFIG_DEFAULT);
    else
        snprintf(op->path, sizeof op->path, BROKERS_PATH "/%d", (int)b->config.broker_id);
    if (gr_store_get(b->store_session, op->path, NULL, NULL, on_data, op) == GR_STORE_OK)
        return;
fail:
    free(op);
    gr_logf(&b->log, GR_LOG_WARN, "config", "cannot read the dynamic broker configs");
    if (!is_default && dynamic_of(b))
        b->dynamic->mine_read = true; /* nothing to wait for */
}

void gr_broker_config_store_load(gr_broker_t *b)
{
    read_level(b, true);
    read_level(b, false);
}

bool gr_broker_config_store_loaded(gr_broker_t *b)
{
    return b->dynamic && b->dynamic->mine_read;
}

void gr_broker_config_store_reload(gr_broker_t *b, const char *name)
{
    char mine[NAME_MAX_LEN];
    snprintf(mine, sizeof mine, "%d", (int)b->config.broker_id);
    if (strcmp(name, GR_BROKER_CONFIG_DEFAULT) == 0 || strcmp(name, mine) == 0) {
        gr_logf(&b->log, GR_LOG_INFO, "config", "dynamic broker configs of %s changed", name);
        read_level(b, strcmp(name, mine) != 0);
    }
}

/* ---- writing ---- */

typedef struct alter_op {
    gr_broker_t *b;
    bool is_default;
    char entity[GR_STORE_PATH_MAX + 1];
    gr_broker_dynamic_edit_t edit;
} alter_op_t;

/* The edit's touched keys over into (their values copied). 0 or -ENOMEM. */
static int overlay(gr_broker_dynamic_set_t *into, const gr_broker_dynamic_edit_t *edit)
{
    for (int k = 0; k < GR_BROKER_DYNAMIC_KEYS; k++) {
        if (!edit->touched[k])
            continue;
        free(into->values[k]);
        into->values[k] = edit->set.values[k] ? strdup(edit->set.values[k]) : NULL;
        if (edit->set.values[k] && !into->values[k])
            return -ENOMEM;
    }
    return 0;
}

/* The stored document (an unreadable one counts as empty) with the edit over it. */
static gr_kerr_t build_doc(void *arg, const char *current, size_t len, char **text,
                           size_t *text_len)
{
    alter_op_t *op = arg;
    gr_broker_dynamic_set_t doc = {{NULL}};
    if (current && len > 0 &&
        gr_zk_doc_config_known(current, len, gr_broker_dynamic_find, doc.values) == -ENOMEM) {
        set_clear(&doc);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    gr_listener_configs_t tls = {0}; /* as stored: passwords encrypted */
    int rc = 0;
    if (current && len > 0 && !op->edit.replace_listeners &&
        gr_listener_configs_parse_raw(current, len, &tls) == -ENOMEM)
        rc = -ENOMEM;
    if (!rc)
        rc = gr_listener_configs_overlay(&tls, &op->edit.listeners);
    gr_topic_config_t *pairs = calloc(GR_BROKER_DYNAMIC_KEYS + tls.count + 1, sizeof *pairs);
    int n = 0;
    if (!rc && !pairs)
        rc = -ENOMEM;
    const char *names[GR_BROKER_DYNAMIC_KEYS];
    int count = key_names(names, NULL);
    if (!rc)
        rc = overlay(&doc, &op->edit);
    for (int k = 0; !rc && k < count; k++)
        if (doc.values[k])
            pairs[n++] = (gr_topic_config_t){(char *)names[k], doc.values[k]};
    for (size_t i = 0; !rc && i < tls.count; i++)
        pairs[n++] = (gr_topic_config_t){tls.keys[i], tls.values[i]};
    if (!rc)
        rc = gr_zk_doc_config_text(pairs, n, text, text_len);
    free(pairs);
    gr_listener_configs_clear(&tls);
    set_clear(&doc);
    return rc ? GR_KERR_UNKNOWN_SERVER_ERROR : GR_KERR_NONE;
}

static void alter_free(alter_op_t *op)
{
    set_clear(&op->edit.set);
    gr_listener_configs_clear(&op->edit.listeners);
    free(op);
}

static void update_done(void *arg, gr_kerr_t err)
{
    alter_op_t *op = arg;
    gr_broker_t *b = op->b;
    if (err)
        gr_logf(&b->log, GR_LOG_WARN, "config", "/config/%s not written: %s", op->entity,
                gr_kerr_name(err));
    struct gr_broker_dynamic *d = b->dynamic;
    if (d && --d->writing[op->is_default] == 0 && !b->stopping)
        read_level(b, op->is_default); /* what others wrote meanwhile, or the store's truth */
    alter_free(op);
}

static void on_parent(void *opaque, int rc, const char *path)
{
    (void)path;
    gr_broker_t *b = opaque;
    b->store_pending--;
    if (rc != GR_STORE_OK && rc != GR_STORE_NODEEXISTS && rc != GR_STORE_CLOSING)
        gr_logf(&b->log, GR_LOG_WARN, "config", "cannot create " BROKERS_PATH ": %s",
                gr_store_rc_name(rc));
}

static int set_copy(gr_broker_dynamic_set_t *to, const gr_broker_dynamic_set_t *from)
{
    for (int i = 0; i < GR_BROKER_DYNAMIC_KEYS; i++)
        if (from->values[i] && !(to->values[i] = strdup(from->values[i]))) {
            set_clear(to);
            return -ENOMEM;
        }
    return 0;
}

/*
 * The edit's listener SSL keys as they will be stored (passwords
 * encrypted) into stored, and the broker's set after it into fresh.
 * 0, -EINVAL (a password that cannot be encrypted) or -ENOMEM.
 */
static int edit_listeners(gr_broker_t *b, struct gr_broker_dynamic *d,
                          const gr_broker_dynamic_edit_t *edit, gr_listener_configs_t *stored,
                          gr_listener_configs_t *fresh)
{
    int rc = edit->replace_listeners ? 0 : gr_listener_configs_overlay(fresh, &d->listeners);
    if (!rc)
        rc = gr_listener_configs_overlay(fresh, &edit->listeners);
    for (size_t i = 0; !rc && i < edit->listeners.count; i++) {
        const char *key = edit->listeners.keys[i], *value = edit->listeners.values[i], *base;
        char listener[GR_LISTENER_NAME_MAX], err[ERR_MAX], *sealed = NULL;
        if (value && gr_listener_ssl_key(key, listener, sizeof listener, &base) &&
            gr_listener_ssl_key_is_password(base))
            rc = gr_password_encode(&b->config, value, &sealed, err, sizeof err);
        if (!rc)
            rc = gr_listener_configs_set(stored, key, sealed ? sealed : value);
        free(sealed);
    }
    return rc;
}

/* b->on_listener_tls for each listener the edit names (all of them when it replaces). */
static void notify_listeners(gr_broker_t *b, const gr_broker_dynamic_edit_t *edit)
{
    const gr_listener_list_t *ls = &b->config.effective.listeners;
    for (int i = 0; b->on_listener_tls && i < ls->count; i++)
        if (edit->replace_listeners ||
            gr_listener_configs_touch(&edit->listeners, ls->items[i].name))
            b->on_listener_tls(b, ls->items[i].name);
}

int gr_broker_config_store_alter(gr_broker_t *b, bool is_default,
                                 const gr_broker_dynamic_edit_t *edit)
{
    struct gr_broker_dynamic *d = dynamic_of(b);
    if (!d)
        return -ENOMEM;
    if (!b->store_session)
        return -EIO;
    gr_broker_dynamic_set_t *level = is_default ? &d->defaults : &d->mine;
    gr_broker_dynamic_set_t fresh = {{NULL}};
    gr_listener_configs_t fresh_listeners = {0};
    alter_op_t *op = calloc(1, sizeof *op);
    int rc = !op || set_copy(&fresh, level) || overlay(&fresh, edit) ||
                     set_copy(&op->edit.set, &edit->set)
                 ? -ENOMEM
                 : edit_listeners(b, d, edit, &op->edit.listeners, &fresh_listeners);
    if (rc) {
        set_clear(&fresh);
        gr_listener_configs_clear(&fresh_listeners);
        if (op)
            alter_free(op);
        return rc;
    }
    memcpy(op->edit.touched, edit->touched, sizeof op->edit.touched);
    op->edit.replace_listeners = edit->replace_listeners;
    op->b = b;
    op->is_default = is_default;
    if (is_default)
        snprintf(op->entity, sizeof op->entity,
                 GR_BROKER_CONFIG_ENTITY_TYPE "/" GR_BROKER_CONFIG_DEFAULT);
    else
        snprintf(op->entity, sizeof op->entity, GR_BROKER_CONFIG_ENTITY_TYPE "/%d",
                 (int)b->config.broker_id);
    if (gr_store_create(b->store_session, BROKERS_PATH, "", 0, GR_STORE_PERSISTENT, on_parent, b) ==
        GR_STORE_OK)
        b->store_pending++;
    gr_config_entity_update_t u = {"config", build_doc, NULL, update_done, op};
    rc = gr_config_entity_update(b, op->entity, &u);
    if (rc) {
        gr_logf(&b->log, GR_LOG_WARN, "config", "/config/%s not written: %s", op->entity,
                strerror(-rc));
        set_clear(&fresh);
        gr_listener_configs_clear(&fresh_listeners);
        alter_free(op); /* update_done never runs then */
        return rc;
    }
    d->writing[is_default]++;
    set_clear(level);
    *level = fresh;
    apply_all(b, d);
    if (!is_default) {
        gr_listener_configs_clear(&d->listeners);
        d->listeners = fresh_listeners;
        notify_listeners(b, edit);
    } else {
        gr_listener_configs_clear(&fresh_listeners); /* none there: refused at <default> */
    }
    return 0;
}

int gr_broker_dynamic_synonyms(const gr_broker_t *b, const char *name, gr_config_synonym_t *syn,
                               int max)
{
    int k = gr_broker_dynamic_find(name);
    struct gr_broker_dynamic *d = k >= 0 ? b->dynamic : NULL;
    int n = 0;
    if (!d)
        return 0;
    if (d->mine.values[k] && n < max)
        syn[n++] = (gr_config_synonym_t){name, d->mine.values[k],
                                         GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_BROKER_CONFIG};
    if (d->defaults.values[k] && n < max)
        syn[n++] = (gr_config_synonym_t){name, d->defaults.values[k],
                                         GR_DESCRIBE_CONFIGS_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG};
    if (d->static_source[k] != GR_CONFIG_SOURCE_DEFAULT && d->static_text[k] && n < max)
        syn[n++] = (gr_config_synonym_t){name, d->static_text[k],
                                         GR_DESCRIBE_CONFIGS_SOURCE_STATIC_BROKER_CONFIG};
    return n;
}
