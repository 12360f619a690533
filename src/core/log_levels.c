/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The loggers and their thresholds (see logging.h). The table lists every
 * subsystem word Gregor's lines use; interop-tests/broker/
 * logging_subsystems_listed.sh fails when a gr_logf() call names one that is
 * missing, so BROKER_LOGGER lists them all.
 *
 * Invariants: levels[GR_LOGGER_ROOT] is always a level; most_verbose is the
 * highest effective level over all loggers after every change (one writer,
 * the loop thread; readers may see a change's two stores in either order,
 * which at worst drops or lets through one line during the change).
 *
 * Names are found by a hash into a per-logger slot table filled by
 * gr_logger_init (open addressing; no global state), then one compare.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "core/logging.h"
#include "core/logging_int.h"

static const char *const logger_names[] = {
    "root", "acl",          "broker", "cleaner",  "config", "controller", "group",  "groups",
    "http", "list_offsets", "log",    "metadata", "net",    "producer",   "quota",  "replica",
    "sasl", "security",     "share",  "store",    "topics", "txn",        "worker", "zookeeper",
};

#define LOGGER_COUNT ((int)(sizeof logger_names / sizeof logger_names[0]))
_Static_assert(LOGGER_COUNT <= GR_LOGGER_MAX, "GR_LOGGER_MAX too small for the logger table");
_Static_assert(GR_LOGGER_SLOTS >= 2 * GR_LOGGER_MAX, "the name hash needs free slots");
_Static_assert((GR_LOGGER_SLOTS & (GR_LOGGER_SLOTS - 1)) == 0, "slots: a power of two");

/* FNV-1a over the name: short names, a few multiplies. */
static unsigned name_hash(const char *name, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    return h & (GR_LOGGER_SLOTS - 1);
}

void gr_log_levels_init(gr_logger_t *log, gr_log_level_t root)
{
    memset(log->slots, 0, sizeof log->slots);
    for (int id = 0; id < GR_LOGGER_MAX; id++)
        atomic_init(&log->levels[id], (signed char)GR_LOG_LEVEL_UNSET);
    atomic_init(&log->levels[GR_LOGGER_ROOT], (signed char)root);
    atomic_init(&log->most_verbose, (signed char)root);
    for (int id = 0; id < LOGGER_COUNT; id++) {
        unsigned s = name_hash(logger_names[id], strlen(logger_names[id]));
        while (log->slots[s] != 0)
            s = (s + 1) & (GR_LOGGER_SLOTS - 1);
        log->slots[s] = (uint8_t)(id + 1);
    }
}

int gr_logger_count(void)
{
    return LOGGER_COUNT;
}

const char *gr_logger_name(int id)
{
    return id >= 0 && id < LOGGER_COUNT ? logger_names[id] : "?";
}

int gr_logger_find(const gr_logger_t *log, const char *name, size_t len)
{
    if (name == NULL)
        return -1;
    for (unsigned s = name_hash(name, len);; s = (s + 1) & (GR_LOGGER_SLOTS - 1)) {
        int slot = log->slots[s];
        if (slot == 0)
            return -1;
        const char *known = logger_names[slot - 1];
        if (strlen(known) == len && memcmp(known, name, len) == 0) /* a NUL in name: no match */
            return slot - 1;
    }
}

gr_log_level_t gr_logger_level(const gr_logger_t *log, int id)
{
    signed char own = GR_LOG_LEVEL_UNSET;
    if (id > GR_LOGGER_ROOT && id < LOGGER_COUNT)
        own = atomic_load_explicit(&log->levels[id], memory_order_relaxed);
    if (own == GR_LOG_LEVEL_UNSET)
        own = atomic_load_explicit(&log->levels[GR_LOGGER_ROOT], memory_order_relaxed);
    return (gr_log_level_t)own;
}

bool gr_logger_level_is_set(const gr_logger_t *log, int id)
{
    if (id < 0 || id >= LOGGER_COUNT)
        return false;
    return atomic_load_explicit(&log->levels[id], memory_order_relaxed) != GR_LOG_LEVEL_UNSET;
}

/* Recomputes the fast no after a change. */
static void update_most_verbose(gr_logger_t *log)
{
    signed char most = atomic_load_explicit(&log->levels[GR_LOGGER_ROOT], memory_order_relaxed);
    for (int id = 1; id < LOGGER_COUNT; id++) {
        signed char l = atomic_load_explicit(&log->levels[id], memory_order_relaxed);
        if (l > most)
            most = l;
    }
    atomic_store_explicit(&log->most_verbose, most, memory_order_relaxed);
}

void gr_logger_set_level(gr_logger_t *log, int id, gr_log_level_t level)
{
    if (id < 0 || id >= LOGGER_COUNT)
        return;
    atomic_store_explicit(&log->levels[id], (signed char)level, memory_order_relaxed);
    update_most_verbose(log);
}

void gr_logger_unset_level(gr_logger_t *log, int id)
{
    if (id <= GR_LOGGER_ROOT || id >= LOGGER_COUNT)
        return;
    atomic_store_explicit(&log->levels[id], (signed char)GR_LOG_LEVEL_UNSET, memory_order_relaxed);
    update_most_verbose(log);
}

/* One "logger=LEVEL" item (len bytes, trimmed): its id and level. 0 or -EINVAL with err. */
static int parse_item(const gr_logger_t *log, const char *item, size_t len, int *id,
                      gr_log_level_t *level, char *err, size_t errlen)
{
    const char *eq = memchr(item, '=', len);
    char value[16];
    if (eq == NULL) {
        snprintf(err, errlen, "gregor.log.levels: \"%.*s\" is not logger=LEVEL", (int)len, item);
        return -EINVAL;
    }
    size_t name_len = (size_t)(eq - item);
    while (name_len > 0 && item[name_len - 1] == ' ')
        name_len--;
    const char *v = eq + 1;
    size_t vlen = len - (size_t)(v - item);
    while (vlen > 0 && *v == ' ') {
        v++;
        vlen--;
    }
    *id = gr_logger_find(log, item, name_len);
    if (*id < 0) {
        snprintf(err, errlen, "gregor.log.levels: unknown logger \"%.*s\"", (int)name_len, item);
        return -EINVAL;
    }
    bool fits = vlen < sizeof value;
    if (fits) {
        memcpy(value, v, vlen);
        value[vlen] = '\0';
    }
    if (!fits || gr_log_level_parse(value, level) != 0) {
        snprintf(err, errlen, "gregor.log.levels: \"%.*s\" is not a log level for %s", (int)vlen, v,
                 gr_logger_name(*id));
        return -EINVAL;
    }
    return 0;
}

/* Walks spec's items, applying them to log when apply. 0 or -EINVAL. */
static int walk_levels(gr_logger_t *log, const gr_logger_t *names, bool apply, const char *spec,
                       char *err, size_t errlen)
{
    for (const char *p = spec; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len > 0 && *p == ' ') {
            p++;
            len--;
        }
        while (len > 0 && p[len - 1] == ' ')
            len--;
        if (len > 0) {
            int id;
            gr_log_level_t level;
            int rc = parse_item(names, p, len, &id, &level, err, errlen);
            if (rc)
                return rc;
            if (apply)
                gr_logger_set_level(log, id, level);
        }
        p = end ? end + 1 : NULL;
    }
    return 0;
}

int gr_logger_apply_levels(gr_logger_t *log, const char *spec, char *err, size_t errlen)
{
    gr_logger_t scratch; /* a name table when log is NULL */
    const gr_logger_t *names = log;
    if (log == NULL) {
        gr_log_levels_init(&scratch, GR_LOG_INFO);
        names = &scratch;
    }
    int rc = walk_levels(NULL, names, false, spec, err, errlen);
    if (rc || log == NULL)
        return rc;
    return walk_levels(log, names, true, spec, err, errlen);
}

void gr_logger_configure(gr_logger_t *log, const gr_config_t *cfg)
{
    gr_log_format_t format = GR_LOG_FORMAT_TEXT;
    char err[128];
    if (cfg->gregor_log_format != NULL)
        (void)gr_log_format_parse(cfg->gregor_log_format, &format); /* checked: text or json */
    gr_logger_set_format(log, format);
    if (cfg->gregor_log_levels != NULL &&
        gr_logger_apply_levels(log, cfg->gregor_log_levels, err, sizeof err) != 0)
        gr_logf(log, GR_LOG_WARN, "config", "%s", err); /* resolve let it through: cannot be */
    if (cfg->broker_id >= 0)
        gr_logger_set_broker_id(log, cfg->broker_id);
}
