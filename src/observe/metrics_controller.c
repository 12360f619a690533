/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kafka_controller_kafkacontroller_* and the unclean elections of
 * ControllerStats: the active controller's counts (controller_census.c),
 * 0 on the other brokers as in Kafka. A single broker runs its own
 * controller, so it reports 1 active controller and the cluster it is.
 */
#include "controller/zk_member.h"
#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"

void gr_metrics_collect_controller(gr_broker_t *b, gr_writer_t *out)
{
    gr_controller_census_t c = {0};
    bool active = b->zk && b->zk->b && gr_zk_member_is_controller(b);
    if (b->zk && b->zk->b)
        gr_controller_census_take(&b->zk->controller, &c);
    gr_prom_gauge(out, "kafka_controller_kafkacontroller_activecontrollercount",
                  "1 on the active controller, 0 on the other brokers.", active);
    gr_prom_gauge(out, "kafka_controller_kafkacontroller_activebrokercount",
                  "Live brokers, as the active controller sees them (0 elsewhere).",
                  (double)c.brokers);
    gr_prom_gauge(out, "kafka_controller_kafkacontroller_globaltopiccount",
                  "Topics in the cluster, on the active controller (0 elsewhere).",
                  (double)c.topics);
    gr_prom_gauge(out, "kafka_controller_kafkacontroller_globalpartitioncount",
                  "Partitions in the cluster, on the active controller (0 elsewhere).",
                  (double)c.partitions);
    gr_prom_gauge(out, "kafka_controller_kafkacontroller_offlinepartitionscount",
                  "Partitions without a live leader, on the active controller (0 elsewhere).",
                  (double)c.offline);
    gr_prom_gauge(out, "kafka_controller_kafkacontroller_preferredreplicaimbalancecount",
                  "Partitions not led by their preferred replica, on the active controller (0 "
                  "elsewhere).",
                  (double)c.imbalanced);
    gr_prom_family(out, "kafka_controller_controllerstats_uncleanleaderelections_total",
                   GR_PROM_COUNTER, "Leaders this broker's controller chose outside the ISR.");
    gr_prom_sample_u64(out, "kafka_controller_controllerstats_uncleanleaderelections_total", NULL,
                       NULL, 0, c.unclean_elections);
}
