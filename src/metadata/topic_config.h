/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka's topic-level configs as one table (topic_config.c): each key's name,
 * type, Kafka 3.8 default, valid range or values, the broker keys it falls
 * back to (its synonyms, primary first: retention.ms <- log.retention.ms,
 * log.retention.minutes, log.retention.hours) and a line of documentation.
 *
 * A topic's value for a key is its override if it has one, else the broker's
 * value for the primary synonym (resolved as the broker resolves it: the
 * effective log.retention.ms honours log.retention.hours), else the topic
 * default. gr_topic_config_describe reports that value with DescribeConfigs'
 * source and synonym list, as Kafka builds them.
 *
 * Runs on: loop thread (the table itself is const).
 */
#ifndef GR_METADATA_TOPIC_CONFIG_H
#define GR_METADATA_TOPIC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "gen/describe_configs.h"
#include "metadata/topics.h"

#define GR_TOPIC_CONFIG_SYNONYMS_MAX     3 /* broker keys per topic key */
#define GR_CONFIG_DESCRIBED_SYNONYMS_MAX 8
#define GR_CONFIG_DESCRIBED_VALUE_MAX    32

typedef struct gr_topic_config_def {
    const char *name;
    gr_config_type_t type;
    const char *default_value;  /* Kafka's topic-level default, as text */
    int64_t min, max;           /* inclusive bounds for INT, LONG (DOUBLE: as doubles) */
    const char *const *allowed; /* valid values (each list item), or NULL */
    const char *synonyms[GR_TOPIC_CONFIG_SYNONYMS_MAX]; /* broker keys, primary first */
    size_t effective_offset; /* of the resolved int64 in gr_config_t, 0 for none */
    const char *doc;
} gr_topic_config_def_t;

typedef struct gr_config_synonym {
    const char *name;
    const char *value;
    int8_t source;
} gr_config_synonym_t;

/* One described entry; value may point into buf, so keep the struct alive while using it. */
typedef struct gr_config_described {
    const char *value;
    int8_t source;
    gr_config_synonym_t synonyms[GR_CONFIG_DESCRIBED_SYNONYMS_MAX];
    int synonym_count;
    char buf[GR_CONFIG_DESCRIBED_VALUE_MAX];
} gr_config_described_t;

/* DescribeConfigs' source of a broker key's value (core/config.h's gr_config_source_t). */
int8_t gr_config_source_described(gr_config_source_t source);

size_t gr_topic_config_def_count(void);
/* The definition of key i (< gr_topic_config_def_count()), in name order. */
const gr_topic_config_def_t *gr_topic_config_def_at(size_t i);
/* The definition of a key, or NULL if it is not a topic config. */
const gr_topic_config_def_t *gr_topic_config_def_find(const char *name);

/*
 * Validates value for key as Kafka parses it (surrounding whitespace ignored,
 * booleans in any case, list items trimmed; ranges and value sets checked;
 * remote.storage.enable=true refused: no tiered storage here) and, when out
 * is not NULL, returns Kafka's canonical text of it in *out (malloc'ed:
 * "TRUE" -> "true", "007" -> "7", "compact, delete" -> "compact,delete").
 * Returns 0, -EINVAL with a message in err, or -ENOMEM.
 */
int gr_topic_config_normalize(const char *key, const char *value, char **out, char *err,
                              size_t errlen);

/* The topic's override of key, or NULL. */
const char *gr_topic_config_override(const gr_topic_t *topic, const char *key);

/*
 * Describes key def of topic (NULL: what a topic without overrides gets):
 * value, source and synonyms (topic override, then the broker's set
 * synonyms, then their defaults, from the primary synonym on).
 */
void gr_topic_config_describe(const gr_broker_t *b, const gr_topic_t *topic,
                              const gr_topic_config_def_t *def, gr_config_described_t *out);

/*
 * Checks a whole override set beyond each value alone (keys between them:
 * min.compaction.lag.ms <= max.compaction.lag.ms). GR_KERR_NONE or
 * INVALID_CONFIG with err.
 */
gr_kerr_t gr_topic_config_check_set(const gr_topic_config_t *configs, int count, char *err,
                                    size_t errlen);

#endif
