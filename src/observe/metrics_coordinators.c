/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The group and transaction coordinators' gauges, counted at scrape time
 * over their tables (group/group_census.h, txn/txn_coordinator.h):
 *  - kafka_coordinator_group_groupmetadatamanager_*: Kafka's
 *    GroupMetadataManager gauges (NumGroups and NumGroups<State> count the
 *    classic groups, as Kafka 4 does; NumOffsets every group's offsets);
 *  - kafka_server_group_coordinator_metrics_*: Kafka 4's
 *    group-coordinator-metrics (group-count by protocol, the count of each
 *    type by state, offset-count), named as the JMX exporter names an
 *    MBean without a rule, except that "-count" becomes "s" ("groups",
 *    "classic_groups", "offsets"): Prometheus keeps a "_count" suffix for
 *    summaries and histograms, and promtool refuses it on a gauge;
 *  - gregor_*: the coordinated partitions, transactions by state (Kafka has
 *    no MBean for them).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "group/group_census.h"
#include "group/group_listing.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"
#include "txn/txn_coordinator.h"

#define GROUP_METRICS "kafka_server_group_coordinator_metrics_"

static int64_t sum(const int64_t *counts, int n)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += counts[i];
    return total;
}

/* Kafka's NumGroups<State> names: the classic state's name, lowercased. */
static void classic_by_state(gr_writer_t *out, const gr_group_census_t *c)
{
    for (int s = 0; s < GR_GROUP_STATE_COUNT; s++) {
        char name[96];
        int n =
            snprintf(name, sizeof name, "kafka_coordinator_group_groupmetadatamanager_numgroups%s",
                     gr_group_state_name((gr_group_state_t)s));
        for (int i = n - (int)strlen(gr_group_state_name((gr_group_state_t)s)); i < n; i++)
            name[i] = (char)tolower((unsigned char)name[i]);
        gr_prom_gauge(out, name,
                      "Classic groups in this state, of the partitions coordinated here.",
                      (double)c->classic[s]);
    }
}

typedef const char *state_name_fn(int state);

static const char *classic_name(int s)
{
    return gr_group_state_name((gr_group_state_t)s);
}
static const char *consumer_name(int s)
{
    return gr_cgroup_state_name((gr_cgroup_state_t)s);
}
static const char *share_name(int s)
{
    return gr_sgroup_state_name((gr_sgroup_state_t)s);
}

static void by_state(gr_writer_t *out, const char *name, const char *help, const int64_t *counts,
                     int n, state_name_fn *state_name)
{
    gr_prom_family(out, name, GR_PROM_GAUGE, help);
    for (int s = 0; s < n; s++) {
        gr_prom_label_t label = GR_PROM_LABEL("state", state_name(s));
        gr_prom_sample(out, name, NULL, &label, 1, (double)counts[s]);
    }
}

static void collect_groups(gr_writer_t *out, const gr_group_census_t *c)
{
    int64_t classic = sum(c->classic, GR_GROUP_STATE_COUNT);
    gr_prom_gauge(out, "kafka_coordinator_group_groupmetadatamanager_numgroups",
                  "Classic groups of the partitions coordinated here.", (double)classic);
    gr_prom_gauge(out, "kafka_coordinator_group_groupmetadatamanager_numoffsets",
                  "Committed offsets held by the groups coordinated here.", (double)c->offsets);
    classic_by_state(out, c);

    gr_prom_family(out, GROUP_METRICS "groups", GR_PROM_GAUGE,
                   "Groups coordinated here, by protocol.");
    const struct {
        const char *protocol;
        int64_t count;
    } protocols[] = {
        {GR_GROUP_TYPE_NAME_CLASSIC, classic},
        {GR_GROUP_TYPE_NAME_CONSUMER, sum(c->consumer, GR_CGROUP_STATE_COUNT)},
        {GR_GROUP_TYPE_NAME_SHARE, sum(c->share, GR_SGROUP_STATE_COUNT)},
    };
    for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++) {
        gr_prom_label_t label = GR_PROM_LABEL("protocol", protocols[i].protocol);
        gr_prom_sample(out, GROUP_METRICS "groups", NULL, &label, 1, (double)protocols[i].count);
    }
    by_state(out, GROUP_METRICS "classic_groups", "Classic groups coordinated here, by state.",
             c->classic, GR_GROUP_STATE_COUNT, classic_name);
    by_state(out, GROUP_METRICS "consumer_groups",
             "Consumer (KIP-848) groups coordinated here, by state.", c->consumer,
             GR_CGROUP_STATE_COUNT, consumer_name);
    by_state(out, GROUP_METRICS "share_groups", "Share groups coordinated here, by state.",
             c->share, GR_SGROUP_STATE_COUNT, share_name);
    gr_prom_gauge(out, GROUP_METRICS "offsets",
                  "Committed offsets held by the groups coordinated here.", (double)c->offsets);
    gr_prom_gauge(out, "gregor_group_coordinator_partitions",
                  "Partitions of __consumer_offsets coordinated (loaded or loading) here.",
                  (double)c->partitions);
}

static const char *txn_name(int s)
{
    return gr_txn_state_name((gr_txn_state_t)s);
}

void gr_metrics_collect_coordinators(gr_broker_t *b, gr_writer_t *out)
{
    if (b->groups) {
        gr_group_census_t c;
        gr_group_census_take(b->groups, &c);
        collect_groups(out, &c);
    }
    if (b->txns) {
        gr_txn_census_t t;
        gr_txn_census_take(b->txns, &t);
        by_state(out, "gregor_txn_coordinator_transactions",
                 "Transactional ids coordinated here, by the state of their transaction.",
                 t.by_state, GR_TXN_STATE_COUNT, txn_name);
        gr_prom_gauge(out, "gregor_txn_coordinator_partitions",
                      "Partitions of __transaction_state coordinated (loaded or loading) here.",
                      (double)t.partitions);
    }
}
