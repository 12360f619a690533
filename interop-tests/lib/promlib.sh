# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# A real Prometheus server (Debian's `prometheus`) for the tests that check
# what an operator would see: it scrapes the brokers' /metrics every second,
# and the test asks its HTTP API (/api/v1/query) with curl, the answer read
# with python3's json. Sourced after lib.sh.
#
# Functions:
#   pl_require                       skip (exit 77) without prometheus/promtool
#   pl_start_prometheus HOST:PORT... write prometheus.yml (job "gregor", every
#                                    1 s, those targets), start Prometheus on a
#                                    free port with its storage in the temp dir,
#                                    wait until it is ready; sets PL_PID, PL_URL.
#                                    Killed by PID with the test (gr_track).
#                                    Its first scrapes come some seconds after
#                                    it is ready (service discovery's update
#                                    interval): start it before the brokers.
#   pl_query EXPR                    the instant query's value: a scalar, or the
#                                    single sample of a vector; empty when the
#                                    vector is empty; fails on more than one
#   pl_is EXPR OP VALUE              whether pl_query EXPR compares so (OP one
#                                    of == != > >= < <=); an empty answer is false
#   pl_wait SECONDS EXPR OP VALUE    poll pl_is until true, or fail the test
PL_PROMETHEUS=${GR_PROMETHEUS:-prometheus}
PL_PROMTOOL=${GR_PROMTOOL:-promtool}
PL_PID=
PL_URL=
PL_LAST= # the value pl_is last read

pl_require()
{
    if ! command -v "$PL_PROMETHEUS" >/dev/null || ! command -v "$PL_PROMTOOL" >/dev/null; then
        gr_note "skipped: needs prometheus and promtool (Debian package prometheus)"
        exit 77
    fi
}

pl_start_prometheus()
{
    local dir=$GR_TMP/prometheus port target targets=""
    mkdir -p "$dir/data"
    for target in "$@"; do targets="${targets:+$targets, }'$target'"; done
    cat >"$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: gregor
    static_configs:
      - targets: [$targets]
EOF
    port=$(gr_free_port)
    "$PL_PROMETHEUS" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
        --web.listen-address="127.0.0.1:$port" --log.level=warn >"$dir/prometheus.log" 2>&1 </dev/null &
    PL_PID=$!
    gr_track "$PL_PID"
    PL_URL=http://127.0.0.1:$port
    gr_wait_until 30 "Prometheus ready at $PL_URL" pl_ready
    gr_note "prometheus pid $PL_PID at $PL_URL scraping $*"
}

pl_ready()
{
    gr_alive "$PL_PID" || gr_fail "prometheus exited: $(tail -n 5 "$GR_TMP/prometheus/prometheus.log")"
    curl -sf -o /dev/null "$PL_URL/-/ready"
}

pl_query()
{
    local answer
    answer=$(curl -sf -G --data-urlencode "query=$1" "$PL_URL/api/v1/query") || return 1
    "$GR_PYTHON" -c 'import json, sys
doc = json.loads(sys.argv[1])
if doc.get("status") != "success":
    sys.exit("query failed: %s" % doc.get("error"))
data = doc["data"]
if data["resultType"] == "scalar":
    print(data["result"][1])
elif len(data["result"]) > 1:
    sys.exit("%d samples, want one: %s" % (len(data["result"]), data["result"]))
elif data["result"]:
    print(data["result"][0]["value"][1])' "$answer"
}

pl_is()
{
    local got
    got=$(pl_query "$1") || return 1
    PL_LAST=$got
    [ -n "$got" ] || return 1
    "$GR_PYTHON" -c 'import operator, sys
ops = {"==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
       "<": operator.lt, "<=": operator.le}
sys.exit(0 if ops[sys.argv[2]](float(sys.argv[1]), float(sys.argv[3])) else 1)' "$got" "$2" "$3"
}

pl_wait()
{
    local seconds=$1 expr=$2 op=$3 value=$4
    local deadline=$((SECONDS + seconds))
    until pl_is "$expr" "$op" "$value"; do
        if [ $SECONDS -ge $deadline ]; then
            gr_fail "timed out after ${seconds}s waiting for Prometheus: $expr $op $value (last: '$(pl_query "$expr" 2>&1)')"
        fi
        sleep 0.2
    done
    gr_note "prometheus: $expr $op $value ($PL_LAST)"
}
