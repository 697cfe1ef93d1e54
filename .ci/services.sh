# Sourced by .ci/run: PostgreSQL and Redis from Debian's packages, on loopback ports, in a
# folder of their own, for the second run of the server's tests (the scaled store and queue).
# services_start sets ARMADORA_TEST_DATABASE and ARMADORA_TEST_QUEUE; services_stop stops both.

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
SERVICES_DIR=""

services_install() {
  # Installed here when missing, as Chromium is: CI's machine may be new.
  local missing=()
  [[ -x "${PG_BIN}/initdb" ]] || missing+=(postgresql)
  command -v redis-server >/dev/null || missing+=(redis-server)
  if ((${#missing[@]})); then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "${missing[@]}"
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

services_start() {
  services_install
  SERVICES_DIR=$(mktemp -d /tmp/armadora-services.XXXXXX)
  chmod 755 "$SERVICES_DIR"
  local pg_port redis_port as_user=()
  pg_port=$(free_port)
  redis_port=$(free_port)
  # PostgreSQL refuses to run as root: its cluster belongs to nobody then.
  if [[ $(id -u) -eq 0 ]]; then
    as_user=(runuser -u nobody --)
    mkdir -p "$SERVICES_DIR/pg"
    chown nobody "$SERVICES_DIR/pg"
  fi
  "${as_user[@]}" "$PG_BIN/initdb" -D "$SERVICES_DIR/pg/data" -U armadora --auth=trust >/dev/null
  "${as_user[@]}" "$PG_BIN/pg_ctl" -D "$SERVICES_DIR/pg/data" -l "$SERVICES_DIR/pg/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $SERVICES_DIR/pg -c fsync=off" start >/dev/null
  "$PG_BIN/createdb" -h 127.0.0.1 -p "$pg_port" -U armadora armadora_test
  redis-server --bind 127.0.0.1 --port "$redis_port" --daemonize yes --save '' --appendonly no \
    --dir "$SERVICES_DIR" --pidfile "$SERVICES_DIR/redis.pid" --logfile "$SERVICES_DIR/redis.log"
  export ARMADORA_TEST_DATABASE="postgresql://armadora@127.0.0.1:$pg_port/armadora_test"
  export ARMADORA_TEST_QUEUE="redis://127.0.0.1:$redis_port/0"
}

services_stop() {
  [[ -n "$SERVICES_DIR" ]] || return 0
  local as_user=()
  [[ $(id -u) -eq 0 ]] && as_user=(runuser -u nobody --)
  "${as_user[@]}" "$PG_BIN/pg_ctl" -D "$SERVICES_DIR/pg/data" -m fast -w stop >/dev/null || true
  if [[ -f "$SERVICES_DIR/redis.pid" ]]; then
    kill "$(cat "$SERVICES_DIR/redis.pid")" 2>/dev/null || true
  fi
  rm -rf "$SERVICES_DIR"
  SERVICES_DIR=""
}
