#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests (docs/league.md, "Testing on PostgreSQL").
#
#   tests/postgres_cluster.sh start DIR   initdb into DIR (an empty or missing folder), start the server
#                                        on a free port of 127.0.0.1, print the URL of its database
#                                        (postgresql://kibitz@127.0.0.1:PORT/kibitz) on stdout
#   tests/postgres_cluster.sh stop DIR    stop that server and remove DIR
#
# Uses Debian's PostgreSQL (`apt-get install postgresql`): initdb and pg_ctl live in
# /usr/lib/postgresql/<version>/bin, not on PATH, and refuse to run as root, so as root they
# run as the `postgres` user (runuser). The cluster trusts local connections and listens on
# 127.0.0.1 only; it holds nothing but test data. Set KIBITZ_PG_BIN to use another bin folder, and
# KIBITZ_PG_FSYNC=on for a server that flushes to disk as a real one does (benchmarks; fsync=off by default).
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$2

bin=${KIBITZ_PG_BIN:-}
if [ -z "$bin" ]; then
    bin=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1 || true)
fi
if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
    echo "no PostgreSQL server found in /usr/lib/postgresql/*/bin (apt-get install -y postgresql)" >&2
    exit 1
fi

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case $action in
start)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$dir/data" -U kibitz --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=${KIBITZ_PG_FSYNC:-off} -c max_connections=200" start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U kibitz kibitz
    echo "postgresql://kibitz@127.0.0.1:$port/kibitz"
    ;;
stop)
    if [ -d "$dir/data" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    usage
    ;;
esac
