#!/usr/bin/env bash
# A local 3-broker Gregor cluster with a standalone ZooKeeper (make cluster).
#
#   bash ci/cluster.sh start [DIR]     ZooKeeper (2181, or a free port) and
#                                      brokers 0, 1, 2 on 9092, 9093, 9094 (or
#                                      free ports), their metrics and health
#                                      endpoints on http://127.0.0.1:9644, 9645,
#                                      9646 (or free ports); prints the
#                                      bootstrap list
#   bash ci/cluster.sh stop [DIR]      stop the brokers (SIGTERM) and ZooKeeper
#   bash ci/cluster.sh status [DIR]    processes, ports, controller, brokers
#   bash ci/cluster.sh kill N [DIR]    SIGKILL broker N (as a crash would)
#   bash ci/cluster.sh restart N [DIR] start broker N again (same port, data)
#
# DIR (default /tmp/gregor-cluster) holds everything: zk/ (ZooKeeper's data),
# b<N>/logs (broker N's log dirs), b<N>.log (its log), b<N>.pid, b<N>.port,
# b<N>.http (the port of its /metrics, /healthz, /readyz).
# Data is kept across stop/start; remove DIR for a fresh cluster. BUILD names
# the build tree (default build). Each broker uses config/server.properties
# with broker.id, listeners, log.dirs and zookeeper.connect (chroot /gregor,
# session timeout 6 s) overridden, and the replication a 3-broker cluster is
# for (server.properties is set up for one broker): topics and the internal
# topics get 3 replicas, and acks=all waits for 2 of them in sync
# (REPLICATION below).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BROKERS=3
FIRST_PORT=9092
FIRST_HTTP_PORT=9644
ZK_PORT=2181
SESSION_TIMEOUT_MS=6000
CONNECTION_TIMEOUT_MS=18000
STOP_DEADLINE_S=30
READY_DEADLINE_S=60
# Replication factor 3 by default, internal topics included; a write with
# acks=all needs 2 in-sync replicas, so one broker may be down.
REPLICATION=(default.replication.factor=3 offsets.topic.replication.factor=3
  transaction.state.log.replication.factor=3 transaction.state.log.min.isr=2
  share.coordinator.state.topic.replication.factor=3 share.coordinator.state.topic.min.isr=2
  min.insync.replicas=2)

die() { echo "ci/cluster.sh: $*" >&2; exit 1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
broker_pid() { cat "$DIR/b$1.pid" 2>/dev/null || true; }
bootstrap() {
  local i out=""
  for ((i = 0; i < BROKERS; i++)); do out="${out:+$out,}localhost:$(cat "$DIR/b$i.port")"; done
  echo "$out"
}

start_broker() {
  local i=$1 port
  ! alive "$(broker_pid "$i")" || die "broker $i already running (pid $(broker_pid "$i"))"
  if [ -f "$DIR/b$i.port" ]; then
    port=$(cat "$DIR/b$i.port")
  else
    port=$((FIRST_PORT + i))
    ! port_open "$port" || port=$(free_port)
    echo "$port" >"$DIR/b$i.port"
  fi
  if [ ! -f "$DIR/b$i.http" ]; then
    local http=$((FIRST_HTTP_PORT + i))
    ! port_open "$http" || http=$(free_port)
    echo "$http" >"$DIR/b$i.http"
  fi
  mkdir -p "$DIR/b$i/logs"
  local kv overrides=()
  for kv in "${REPLICATION[@]}"; do overrides+=(--override "$kv"); done
  # setsid: the broker outlives this script and the terminal's Ctrl-C.
  setsid "$BUILD/gregor" config/server.properties "${overrides[@]}" \
    --override "broker.id=$i" \
    --override "listeners=PLAINTEXT://localhost:$port" \
    --override "gregor.http.listener=http://127.0.0.1:$(cat "$DIR/b$i.http")" \
    --override "log.dirs=$DIR/b$i/logs" \
    --override "zookeeper.connect=127.0.0.1:$(cat "$DIR/zk/port")/gregor" \
    --override "zookeeper.session.timeout.ms=$SESSION_TIMEOUT_MS" \
    --override "zookeeper.connection.timeout.ms=$CONNECTION_TIMEOUT_MS" \
    >>"$DIR/b$i.log" 2>&1 </dev/null &
  echo $! >"$DIR/b$i.pid"
  local deadline=$((SECONDS + READY_DEADLINE_S))
  until port_open "$port"; do
    alive "$(broker_pid "$i")" || { tail -n 20 "$DIR/b$i.log" >&2; die "broker $i exited (log: $DIR/b$i.log)"; }
    [ $SECONDS -lt $deadline ] || die "broker $i not listening on $port after ${READY_DEADLINE_S}s"
    sleep 0.1
  done
  echo "broker $i: pid $(broker_pid "$i"), localhost:$port, metrics" \
    "http://127.0.0.1:$(cat "$DIR/b$i.http")/metrics, log $DIR/b$i.log"
}

stop_broker() {
  local i=$1 pid
  pid=$(broker_pid "$i")
  [ -n "$pid" ] || return 0
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_DEADLINE_S))
    while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    if alive "$pid"; then
      echo "broker $i did not stop within ${STOP_DEADLINE_S}s; SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  echo "broker $i stopped"
  rm -f "$DIR/b$i.pid"
}

cmd_start() {
  [ -x "$BUILD/gregor" ] || die "no $BUILD/gregor: build first (make cluster builds)"
  mkdir -p "$DIR"
  local zk_port=$ZK_PORT
  [ ! -f "$DIR/zk/port" ] || zk_port=$(cat "$DIR/zk/port")
  if [ ! -f "$DIR/zk/zookeeper.pid" ] || ! alive "$(cat "$DIR/zk/zookeeper.pid")"; then
    if [ ! -f "$DIR/zk/port" ] && port_open "$zk_port"; then zk_port=$(free_port); fi
    bash ci/zookeeper.sh start "$DIR/zk" "$zk_port" >/dev/null
  fi
  echo "ZooKeeper: 127.0.0.1:$(cat "$DIR/zk/port") (chroot /gregor), log $DIR/zk/zookeeper.log"
  local i
  for ((i = 0; i < BROKERS; i++)); do alive "$(broker_pid "$i")" || start_broker "$i"; done
  echo "bootstrap servers: $(bootstrap)"
  echo "stop with: bash ci/cluster.sh stop $DIR"
}

cmd_stop() {
  local i
  for ((i = 0; i < BROKERS; i++)); do
    local pid
    pid=$(broker_pid "$i")
    ! alive "$pid" || kill -TERM "$pid"
  done
  for ((i = 0; i < BROKERS; i++)); do stop_broker "$i"; done
  [ ! -d "$DIR/zk" ] || bash ci/zookeeper.sh stop "$DIR/zk"
  echo "stopped (data kept in $DIR)"
}

cmd_status() {
  local i pid
  if [ -f "$DIR/zk/zookeeper.pid" ] && alive "$(cat "$DIR/zk/zookeeper.pid")"; then
    echo "ZooKeeper: running, 127.0.0.1:$(cat "$DIR/zk/port")"
  else
    echo "ZooKeeper: stopped"
  fi
  for ((i = 0; i < BROKERS; i++)); do
    pid=$(broker_pid "$i")
    if alive "$pid"; then
      echo "broker $i: running, pid $pid, localhost:$(cat "$DIR/b$i.port"), http port $(cat "$DIR/b$i.http" 2>/dev/null)"
    else
      echo "broker $i: stopped"
    fi
  done
  for ((i = 0; i < BROKERS; i++)); do
    alive "$(broker_pid "$i")" || continue
    echo "as broker $i sees the cluster:"
    "$BUILD/gregor-admin" --bootstrap-server "localhost:$(cat "$DIR/b$i.port")" cluster describe || true
    return 0
  done
}

cmd=${1:-}
case $cmd in
start | stop | status)
  DIR=${2:-/tmp/gregor-cluster}
  "cmd_$cmd"
  ;;
kill | restart)
  [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -lt $BROKERS ] || die "usage: $0 $cmd N [DIR] (N = 0..$((BROKERS - 1)))"
  DIR=${3:-/tmp/gregor-cluster}
  if [ "$cmd" = kill ]; then
    pid=$(broker_pid "$2")
    alive "$pid" || die "broker $2 is not running"
    kill -KILL "$pid"
    rm -f "$DIR/b$2.pid"
    echo "broker $2 killed (SIGKILL); its partitions go offline once its ZooKeeper session expires (6 s)"
  else
    stop_broker "$2"
    start_broker "$2"
  fi
  ;;
*)
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
  ;;
esac
