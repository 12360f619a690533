#!/usr/bin/env bash
# Starts and stops a standalone ZooKeeper server (Debian's `zookeeper` package)
# for cluster tests and local clusters.
#
#   bash ci/zookeeper.sh start DIR [PORT]   prints the client port on stdout
#   bash ci/zookeeper.sh stop DIR
#
# DIR holds zoo.cfg, data/, zookeeper.log, zookeeper.pid and port. `stop` keeps
# data/, so `start DIR PORT` again restarts the server with the same znodes and
# sessions (tests stop and restart ZooKeeper to cause connection loss and, if
# the outage outlasts a session timeout, session expiry).
# Without PORT a free loopback port is chosen. GR_ZK_HOST (default 127.0.0.1)
# is the address it listens on (the network-partition tests run it in a
# network namespace of their own, on the namespace's address). Exit 77 if
# Java or ZooKeeper is not installed (tests treat it as "skip").
set -euo pipefail

ZK_JAR=/usr/share/java/zookeeper.jar
# zookeeper.jar's manifest lists its dependencies; slf4j-simple makes it log to
# stderr (Debian's jar has no logging binding of its own).
ZK_CLASSPATH="$ZK_JAR:/usr/share/java/slf4j-simple.jar"
JAVA=${JAVA:-/usr/bin/java}
START_DEADLINE_S=${GR_ZK_START_DEADLINE_S:-90}
STOP_GRACE_S=10
ZK_HOST=${GR_ZK_HOST:-127.0.0.1}

die() { echo "ci/zookeeper.sh: $*" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Sends a four-letter word; prints the answer (empty if nobody answers).
four_letter() {
  local port=$1 word=$2
  python3 - "$ZK_HOST" "$port" "$word" <<'EOF' 2>/dev/null || true
import socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2)
    s.sendall(sys.argv[3].encode())
    out = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        out += chunk
    print(out.decode(errors="replace"), end="")
except OSError:
    pass
EOF
}

pid_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

write_config() {
  local dir=$1 port=$2
  cat >"$dir/zoo.cfg" <<EOF
tickTime=500
dataDir=$dir/data
clientPort=$port
clientPortAddress=$ZK_HOST
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat
minSessionTimeout=1000
maxSessionTimeout=60000
EOF
}

start() {
  local dir=$1 port=${2:-}
  [ -x "$JAVA" ] || { echo "ci/zookeeper.sh: no Java at $JAVA" >&2; exit 77; }
  [ -f "$ZK_JAR" ] || { echo "ci/zookeeper.sh: no $ZK_JAR (apt-get install zookeeper)" >&2; exit 77; }
  mkdir -p "$dir/data"
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/zookeeper.pid" ] && pid_alive "$(cat "$dir/zookeeper.pid")"; then
    die "already running in $dir (pid $(cat "$dir/zookeeper.pid"))"
  fi
  [ -n "$port" ] || port=$(free_port)
  write_config "$dir" "$port"
  echo "$port" >"$dir/port"
  "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dzookeeper.admin.enableServer=false \
    -cp "$ZK_CLASSPATH" org.apache.zookeeper.server.ZooKeeperServerMain \
    "$dir/zoo.cfg" >>"$dir/zookeeper.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$dir/zookeeper.pid"
  local deadline=$((SECONDS + START_DEADLINE_S))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if ! pid_alive "$pid"; then
      tail -n 30 "$dir/zookeeper.log" >&2
      die "ZooKeeper exited during start-up (log: $dir/zookeeper.log)"
    fi
    if [ "$(four_letter "$port" ruok)" = "imok" ]; then
      echo "$port"
      return 0
    fi
    sleep 0.2
  done
  tail -n 30 "$dir/zookeeper.log" >&2
  kill -KILL "$pid" 2>/dev/null || true
  die "ZooKeeper did not answer on port $port within ${START_DEADLINE_S}s"
}

stop() {
  local dir=$1
  [ -f "$dir/zookeeper.pid" ] || return 0
  local pid
  pid=$(cat "$dir/zookeeper.pid")
  # A stale pid file must not make us kill an unrelated process that reused the PID.
  if pid_alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q ZooKeeperServerMain; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_GRACE_S))
    while pid_alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
    if pid_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    # Not our child (started by an earlier invocation): poll until it is gone.
    while pid_alive "$pid"; do sleep 0.1; done
  fi
  rm -f "$dir/zookeeper.pid"
}

case "${1:-}" in
start) [ $# -ge 2 ] || die "usage: $0 start DIR [PORT]"; start "$2" "${3:-}" ;;
stop) [ $# -ge 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
*) die "usage: $0 start DIR [PORT] | stop DIR" ;;
esac
