#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# broker.id=-1 in a ZooKeeper cluster, as Kafka does it: three brokers
# started one after another with no meta.properties each set /brokers/seqid
# and take its new version + reserved.broker.max.id (1000), so between them
# they hold 1001, 1002 and 1003, distinct, each written to its meta.properties,
# registered under /brokers/ids and reported by every broker's Metadata. A
# restarted broker keeps its id (from meta.properties, /brokers/seqid not set
# again). Refused at start, with a message naming the cause: a configured
# broker.id that differs from meta.properties, broker.id=-1 with
# broker.id.generation.enable=false, and a configured id above
# reserved.broker.max.id.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require

# clusterlib gives broker i broker.id=i; the override after it asks for generation.
CL_START_WAIT=0 cl_start_cluster 3 broker.id=-1

# broker.id in broker $1's meta.properties (written before it listens).
meta_id()
{
    sed -n 's/^broker\.id=//p' "$GR_TMP/b$1/logs/meta.properties"
}

declare -a ID=()
for i in 0 1 2; do
    ID[i]=$(meta_id "$i")
    [[ "${ID[$i]}" =~ ^[0-9]+$ ]] || gr_fail "broker $i's meta.properties has broker.id '${ID[$i]}', want a generated id"
    gr_note "broker $i generated id ${ID[$i]}"
done
ids=$(printf '%s\n' "${ID[@]}" | sort -n | tr '\n' ' ')
[ "$ids" = "1001 1002 1003 " ] || gr_fail "generated ids are '$ids', want 1001 1002 1003 (distinct, above reserved.broker.max.id=1000)"
want=$(printf '%s\n' "${ID[@]}" | sort -n | tr '\n' ' ' | sed 's/ $//')

# Every broker reports the three generated ids and one controller among them.
# shellcheck disable=SC2317
all_see_ids()
{
    local i controller="" c
    for i in $(cl_live); do
        [ "$(cl_state "$i" brokers 2>/dev/null)" = "$want" ] || return 1
        c=$(cl_state "$i" controller 2>/dev/null) || return 1
        [ -n "$controller" ] || controller=$c
        [ "$c" = "$controller" ] || return 1
    done
    [[ " $want " == *" $controller "* ]]
}
gr_wait_until "$CL_WAIT_S" "every broker to report brokers $want and one controller" all_see_ids
registered=$(cl_zk ls "$CL_ZK_CHROOT/brokers/ids") || gr_fail "zkCli ls /brokers/ids failed"
[ "$registered" = "[${want// /, }]" ] || gr_fail "/brokers/ids lists $registered, want [${want// /, }]"
seqid_version()
{
    cl_zk stat "$CL_ZK_CHROOT/brokers/seqid" | sed -n 's/^dataVersion = //p'
}
[ "$(seqid_version)" = 3 ] || gr_fail "/brokers/seqid has data version '$(seqid_version)', want 3 (one set per broker)"

# A restart keeps the id: meta.properties, no new sequence number.
cl_restart_broker 1
[ "$(meta_id 1)" = "${ID[1]}" ] || gr_fail "broker 1's meta.properties says $(meta_id 1) after a restart, was ${ID[1]}"
gr_wait_until "$CL_WAIT_S" "every broker to report brokers $want after broker 1's restart" all_see_ids
[ "$(seqid_version)" = 3 ] || gr_fail "/brokers/seqid has data version '$(seqid_version)' after a restart, want 3 (the id comes from meta.properties)"

# Refusals. Each runs a broker directly and wants it to exit non-zero, saying why.
refused()
{
    local what=$1 needle=$2 rc=0
    shift 2
    timeout "$GR_CMD_TIMEOUT_S" "$GR_BROKER" --override "zookeeper.connect=127.0.0.1:$CL_ZK_PORT$CL_ZK_CHROOT" \
        --override "listeners=PLAINTEXT://127.0.0.1:0" "$@" >"$GR_TMP/refused.out" 2>&1 </dev/null || rc=$?
    if [ $rc = 0 ] || [ $rc = 124 ]; then
        gr_fail "$what: the broker exited with status $rc, want a refusal: $(tail -n 3 "$GR_TMP/refused.out")"
    fi
    grep -q -- "$needle" "$GR_TMP/refused.out" || gr_fail "$what: no '$needle' in its message: $(tail -n 3 "$GR_TMP/refused.out")"
}
cl_stop_broker 0
refused "broker.id=5 on broker 0's log dir (meta.properties: ${ID[0]})" "does not match broker.id ${ID[0]} in meta.properties" \
    --override "broker.id=5" --override "log.dirs=$GR_TMP/b0/logs"
[ "$(meta_id 0)" = "${ID[0]}" ] || gr_fail "a refused start changed broker 0's meta.properties to $(meta_id 0)"
refused "broker.id=-1 without generation" "broker.id.generation.enable is false" \
    --override "broker.id=-1" --override "broker.id.generation.enable=false" --override "log.dirs=$GR_TMP/fresh/logs"
refused "broker.id=1001 with reserved.broker.max.id=1000" "reserved.broker.max.id" \
    --override "broker.id=1001" --override "log.dirs=$GR_TMP/fresh/logs"
[ "$(seqid_version)" = 3 ] || gr_fail "/brokers/seqid has data version '$(seqid_version)' after refused starts, want 3"
cl_start_broker 0
[ "$(meta_id 0)" = "${ID[0]}" ] || gr_fail "broker 0's meta.properties says $(meta_id 0) after its restart, was ${ID[0]}"
gr_wait_until "$CL_WAIT_S" "every broker to report brokers $want with broker 0 back" all_see_ids
gr_pass
