#!/usr/bin/env bash
# Ours and the real Ironic 39 side by side, one after the other, on the same
# machine: the numbers of tools/bench/RESULTS.md.
#
#   tools/bench/side_by_side.sh api1k     # 1,000 nodes: create, list, get,
#                                         # patch, provision (100 nodes)
#   tools/bench/side_by_side.sh api10k    # grow both to 10,000, list again
#   tools/bench/side_by_side.sh prov1k    # 1,000 nodes enroll -> active
#                                         # and back
#   tools/bench/side_by_side.sh idle      # CPU of an idle service per
#                                         # power-sync cycle (all manageable)
#   tools/bench/side_by_side.sh serving   # 500 nodes with the shared
#                                         # bench: create, list, get, patch,
#                                         # lookup, heartbeat (server CPU)
#   SERVING_PHASES=create,lookup,heartbeat BEFORE_TREE=/tmp/main \
#   tools/bench/side_by_side.sh serving   # only those phases, and a third
#                                         # service: ours as of another
#                                         # source tree ("before", port 6397)
#
# BENCH_DIR (default /tmp/ironic-bench) holds both services' state;
# REAL_VENV (default ~/real-ironic) is a virtualenv with ironic==39.0.0,
# OURS_VENV (default .tox/tests) one with this project installed; ours runs
# this tree's code (PYTHONPATH), "before" the code of BEFORE_TREE (an
# unpacked checkout, e.g. `git archive main | tar -x -C /tmp/main`) in the
# same venv. Ports: ours 6395, real 6396, before 6397, all on 127.0.0.1.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${BENCH_DIR:-/tmp/ironic-bench}
REAL=${REAL_VENV:-$HOME/real-ironic}
OURS=${OURS_VENV:-$ROOT/.tox/tests}
PY=$OURS/bin/python
BENCH=$ROOT/tools/bench/api_bench.py
FLOOR=${FLOOR_SCRIPT:-$ROOT/../shared/bench/floor_list.py}
SHARED_BENCH=${SHARED_BENCH:-$ROOT/../shared/bench/api_bench.py}
BEFORE_TREE=${BEFORE_TREE:-}
declare -A PORT=([ours]=6395 [real]=6396 [before]=6397)
declare -A BIN=([ours]=$OURS/bin [real]=$REAL/bin [before]=$OURS/bin)
# Which source tree each of our services imports (none: the real Ironic).
declare -A TREE=([ours]=$ROOT [real]= [before]=$BEFORE_TREE)
SERVICES="ours real${BEFORE_TREE:+ before}"

write_config() {
    # One configuration for every benchmark: tools/bench/ironic.conf.in.
    local who=$1
    mkdir -p "$DIR/$who"
    sed -e '/^#/d' -e "s|@HOST@|$who-host|g" -e "s|@STATE_PATH@|$DIR/$who|g" \
        -e "s|@PORT@|${PORT[$who]}|g" "$ROOT/tools/bench/ironic.conf.in" \
        > "$DIR/$who/ironic.conf"
}

stop() {
    # Either service (default: both), so that each is measured alone: a
    # service starting up or idling beside the other takes CPU from it.
    local who
    for who in ${1:-$SERVICES}; do
        [ -f "$DIR/$who/pid" ] && kill "$(cat "$DIR/$who/pid")" 2>/dev/null
        rm -f "$DIR/$who/pid"
    done
    sleep 5
}

start() {
    local who=$1
    (cd "$DIR" && PYTHONPATH=${TREE[$who]} \
        exec "${BIN[$who]}/ironic" --config-file "$DIR/$who/ironic.conf" \
        > "$DIR/$who/log" 2>&1) &
    echo $! > "$DIR/$who/pid"
    for _ in $(seq 1 90); do
        curl -sf "http://127.0.0.1:${PORT[$who]}/" > /dev/null && return 0
        sleep 1
    done
    echo "$who did not start; see $DIR/$who/log" >&2
    return 1
}

fresh() {
    stop
    for who in $SERVICES; do
        write_config "$who"
        rm -f "$DIR/$who"/ironic.sqlite*
    done
    # The real Ironic imports its own package, whatever the caller has on
    # PYTHONPATH (start() clears it too).
    PYTHONPATH= "$REAL/bin/ironic-dbsync" \
        --config-file "$DIR/real/ironic.conf" create_schema \
        > "$DIR/real/dbsync.log" 2>&1
    for who in ours${BEFORE_TREE:+ before}; do
        (cd "$DIR" && PYTHONPATH=${TREE[$who]} "$OURS/bin/ironic-dbsync" \
            --config-file "$DIR/$who/ironic.conf" upgrade \
            > "$DIR/$who/dbsync.log" 2>&1)
    done
}

bench() {
    local who=$1 tag=$2
    shift 2
    "$PY" "$BENCH" --url "http://127.0.0.1:${PORT[$who]}" --label "$who" \
        --pid "$(cat "$DIR/$who/pid")" --json-out "$DIR/$who-$tag.json" \
        "$@" 2> "$DIR/$who-$tag.log" | grep -v '^{' | tee "$DIR/$who-$tag.txt"
}

api1k() {
    fresh
    for who in ours real; do
        start "$who" || return 1
        bench "$who" 1k -n 1000 --prov-nodes 100 \
            --phases create,list,get,get1,patch,provision
        # Lists again once the create phase's work has settled.
        bench "$who" 1k-list --phases list,get,get1 --list-repeat 9
        stop "$who"
    done
    "$PY" "$FLOOR" --db "$DIR/ours/ironic.sqlite" --repeat 5 \
        | tee "$DIR/floor-1k.out"
}

prov1k() {
    # 1,000 nodes through the whole lifecycle, each service alone.
    fresh
    for who in ours real; do
        start "$who" || return 1
        bench "$who" prov1k -n 1000 --prov-nodes 1000 \
            --phases create,provision
        stop "$who"
    done
}

api10k() {
    # Each database is grown to 9,500 nodes by cloning rows (creating them
    # through the real Ironic's API would take 20 minutes), then 500 more
    # are created through each API: 10,000.
    stop
    for who in ours real; do
        "$PY" "$ROOT/tools/bench/seed_sqlite.py" \
            --db "$DIR/$who/ironic.sqlite" --nodes 9500
    done
    for who in ours real; do
        start "$who" || return 1
        bench "$who" 10k-create -n 500 --phases create
        bench "$who" 10k --phases list,get,get1 --samples 1000
        stop "$who"
    done
    "$PY" "$FLOOR" --db "$DIR/ours/ironic.sqlite" --repeat 3 \
        | tee "$DIR/floor-10k.out"
}

serving() {
    # The shared client (it has the agent's lookup and heartbeat), each
    # service alone, one after the other.
    fresh
    for who in $SERVICES; do
        start "$who" || return 1
        echo "$who: load average $(cut -d' ' -f1-3 /proc/loadavg) at" \
            "$(date -u +%H:%M:%S)" | tee "$DIR/$who-serving.load"
        "$PY" "$SHARED_BENCH" --url "http://127.0.0.1:${PORT[$who]}" \
            --label "$who" --pid "$(cat "$DIR/$who/pid")" \
            -n "${SERVING_NODES:-500}" \
            --phases "${SERVING_PHASES:-create,list,get,patch,lookup,heartbeat}" \
            --json-out "$DIR/$who-serving.json" 2> "$DIR/$who-serving.log" \
            | grep -v '^{' | tee "$DIR/$who-serving.txt"
        stop "$who"
    done
}

cpu_ticks() {
    local pid=$1 total=0 p
    for p in $pid $(pgrep -P "$pid"); do
        read -r -a f < "/proc/$p/stat"
        total=$((total + f[13] + f[14]))
    done
    echo "$total"
}

idle() {
    # Every node manageable and powered off, no client traffic; each
    # service alone on the machine while its CPU is counted.
    stop
    for who in ours real; do
        sqlite3 "$DIR/$who/ironic.sqlite" "UPDATE nodes SET
            provision_state='manageable', target_provision_state=NULL,
            power_state='power off', reservation=NULL, maintenance=0"
    done
    for who in ours real; do
        start "$who"
        sleep "${IDLE_WARMUP:-150}"
        local pid a b window=${IDLE_WINDOW:-360}
        pid=$(cat "$DIR/$who/pid")
        a=$(cpu_ticks "$pid")
        sleep "$window"
        b=$(cpu_ticks "$pid")
        echo "$who: $(( (b - a) / $(getconf CLK_TCK) )) CPU-s in ${window} s" \
             "(sync_power_state_interval 120)" | tee "$DIR/$who-idle.txt"
        stop
    done
}

mkdir -p "$DIR"
"${1:?usage: side_by_side.sh api1k|prov1k|api10k|idle|serving}"
