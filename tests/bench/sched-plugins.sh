#!/usr/bin/env bash
# Out-of-tree plugins against the engine without them, in memory (bench-sched-default, the
# plain pods onto an empty cluster, v1.20's default profile): pods/s on one core and the
# p99 of one decision's wall time, at 500 and 5,000 nodes, for
#   engine     the default profile alone;
#   score      the default profile and node-label-score (a numeric node label, weight 1);
#   filter     the default profile and pair-anti-affinity (pods of one app group whose tier
#              is backend never share a node);
#   extender   the default profile and node-label-score's extender twin
#              (tests/e2e/plugin-extender-twin.py, its prioritize verb over HTTP, weight 1):
#              the same rule as "score", as kube-scheduler users run it today;
# each the best (lowest time per pod) of ROUNDS runs, as the machine is shared. The engine
# and the plugins are measured in CPU time of the one process; the extender in wall time
# (its work is in another process), on EXT_PODS pods. Writes
# $BENCH_DIR/sched-plugins.csv (tools/bench-plots draws sched-plugins.svg) and a table.
# The plugins are loaded as the daemon loads them (its clock, the 100 ms budget, the
# watchdog): from a root-owned directory, so this runs as root.
#   PLUGIN_BENCH_NODES ("500 5000"), PLUGIN_BENCH_PODS (3000), PLUGIN_BENCH_ROUNDS (3),
#   PLUGIN_BENCH_EXT_PODS (200)
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build/default}
NODES=${PLUGIN_BENCH_NODES:-"500 5000"}
PODS=${PLUGIN_BENCH_PODS:-3000}
ROUNDS=${PLUGIN_BENCH_ROUNDS:-3}
EXT_PODS=${PLUGIN_BENCH_EXT_PODS:-200}
OUT=${BENCH_DIR:-build/bench}/sched-plugins.csv
mkdir -p "$(dirname "$OUT")"
T=$(mktemp -d)
TWIN_PID=
trap '[ -n "$TWIN_PID" ] && kill "$TWIN_PID" 2>/dev/null; rm -rf "$T"' EXIT
chmod 0755 "$T"
mkdir -m 0755 "$T/plugins"
install -m 0755 "$O/plugins/node-label-score.so" "$O/plugins/pair-anti-affinity.so" "$T/plugins/"

head='apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler'
printf '%s\n' "$head" > "$T/engine.yaml"
printf '%s\n' "$head" '  plugins:' '    score: {enabled: [{name: node-label-score, weight: 1}]}' \
  '  pluginConfig:' '  - {name: node-label-score, args: {labels: [{key: example.com/rack-score}]}}' \
  > "$T/score.yaml"
printf '%s\n' "$head" '  plugins:' '    filter: {enabled: [{name: pair-anti-affinity}]}' '  pluginConfig:' \
  '  - {name: pair-anti-affinity, args: {groupLabel: app, roleLabel: tier, conflicts: [[backend, backend]]}}' \
  > "$T/filter.yaml"

cp "$T/engine.yaml" "$T/extender.yaml"
PORT=$(python3 tests/lib/free-port.py)
python3 tests/e2e/plugin-extender-twin.py "$PORT" '{"roleLabel":"tier","conflicts":[["backend","backend"]]}' \
  '{"labels":[{"key":"example.com/rack-score"}]}' 2> "$T/twin.err" &
TWIN_PID=$!
for _ in $(seq 50); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null && break
  sleep 0.1
done

# one run: prints "us_per_pod p99_us" (wall time per pod for the extender)
run() { # CONFIG NODES
  local extra=() pods=$PODS col=8
  if [ "$1" = extender ]; then extra=(--extender "http://127.0.0.1:$PORT"); pods=$EXT_PODS col=10; fi
  "$O/bench/bench-sched-default" --config "$T/$1.yaml" --plugin-dir "$T/plugins" --nodes "$2" --cases plain \
    --pods "$pods" --budget 30 --csv "$T/run.csv" "${extra[@]}" > /dev/null 2> "$T/run.err" ||
    { cat "$T/run.err" >&2; return 1; }
  awk -F, -v c="$col" 'NR == 2 { print $c, $9 }' "$T/run.csv"
}

echo "nodes,config,pods_per_s,p99_us,vs_engine,load1" > "$OUT"
printf '| nodes | configuration | pods/s (1 core) | p99 us/pod | vs the engine alone |\n| ---: | --- | ---: | ---: | ---: |\n'
CONFIGS=(engine score filter extender)
for n in $NODES; do
  declare -A best=() p99=()
  # the configurations in turn within each round, so that a change of the machine's load
  # falls on all of them
  for _ in $(seq "$ROUNDS"); do
    for c in "${CONFIGS[@]}"; do
      # a run that fails ends the bench (its reason is on stderr), never a row of "inf"
      out=$(run "$c" "$n") || { echo "sched-plugins: the $c configuration did not run on $n nodes" >&2; exit 1; }
      read -r us p <<< "$out"
      if [ -z "${best[$c]:-}" ] || awk -v a="$us" -v b="${best[$c]}" 'BEGIN { exit !(a < b) }'; then
        best[$c]=$us p99[$c]=$p
      fi
    done
  done
  for c in "${CONFIGS[@]}"; do
    pps=$(awk -v u="${best[$c]}" 'BEGIN { printf "%.0f", 1e6 / u }')
    ratio=$(awk -v u="${best[$c]}" -v e="${best[engine]}" 'BEGIN { printf "%.3f", e / u }')
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "$n,$c,$pps,${p99[$c]},$ratio,$load" >> "$OUT"
    printf '| %s | %s | %s | %s | %s |\n' "$n" "$c" "$pps" "${p99[$c]}" "$ratio"
  done
  unset best p99
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
