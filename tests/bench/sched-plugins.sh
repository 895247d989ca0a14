#!/usr/bin/env bash
# Out-of-tree plugins against the engine without them, in memory (bench-sched-default, the
# plain pods onto an empty cluster, v1.20's default profile): pods/s on one core and the
# p99 of one decision's wall time, at 500 and 5,000 nodes, for
#   engine     the default profile alone;
#   score      the default profile and node-label-score (a numeric node label, weight 1);
#   filter     the default profile and pair-anti-affinity (pods of one app group whose tier
#              is backend never share a node);
# each the best (lowest CPU per pod) of ROUNDS runs, as the machine is shared. Writes
# $BENCH_DIR/sched-plugins.csv (tools/bench-plots draws sched-plugins.svg) and a table.
# The plugins are loaded as the daemon loads them (its clock, the 100 ms budget, the
# watchdog): from a root-owned directory, so this runs as root.
#   PLUGIN_BENCH_NODES ("500 5000"), PLUGIN_BENCH_PODS (3000), PLUGIN_BENCH_ROUNDS (3)
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build/default}
NODES=${PLUGIN_BENCH_NODES:-"500 5000"}
PODS=${PLUGIN_BENCH_PODS:-3000}
ROUNDS=${PLUGIN_BENCH_ROUNDS:-3}
OUT=${BENCH_DIR:-build/bench}/sched-plugins.csv
mkdir -p "$(dirname "$OUT")"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 0755 "$T"
mkdir -m 0755 "$T/plugins"
install -m 0755 "$O/plugins/node-label-score.so" "$O/plugins/pair-anti-affinity.so" "$T/plugins/"

head='apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler'
printf '%s\n' "$head" > "$T/engine.yaml"
printf '%s\n' "$head" '  plugins:' '    score: {enabled: [{name: node-label-score, weight: 1}]}' \
  '  pluginConfig:' '  - {name: node-label-score, args: {labels: [{key: node.kubernetes.io/instance-type}]}}' \
  > "$T/score.yaml"
printf '%s\n' "$head" '  plugins:' '    filter: {enabled: [{name: pair-anti-affinity}]}' '  pluginConfig:' \
  '  - {name: pair-anti-affinity, args: {groupLabel: app, roleLabel: tier, conflicts: [[backend, backend]]}}' \
  > "$T/filter.yaml"

# one run: prints "us_per_pod p99_us"
run() { # CONFIG NODES
  "$O/bench/bench-sched-default" --config "$T/$1.yaml" --plugin-dir "$T/plugins" --nodes "$2" --cases plain \
    --pods "$PODS" --budget 30 --csv "$T/run.csv" > /dev/null 2> "$T/run.err" || { cat "$T/run.err" >&2; return 1; }
  awk -F, 'NR == 2 { print $8, $9 }' "$T/run.csv"
}

echo "nodes,config,pods_per_s,p99_us,vs_engine,load1" > "$OUT"
printf '| nodes | configuration | pods/s (1 core) | p99 us/pod | vs the engine alone |\n| ---: | --- | ---: | ---: | ---: |\n'
for n in $NODES; do
  engine=
  for c in engine score filter; do
    best= p99=
    for _ in $(seq "$ROUNDS"); do
      read -r us p <<< "$(run "$c" "$n")"
      if [ -z "$best" ] || awk -v a="$us" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$us p99=$p; fi
    done
    [ "$c" = engine ] && engine=$best
    pps=$(awk -v u="$best" 'BEGIN { printf "%.0f", 1e6 / u }')
    ratio=$(awk -v u="$best" -v e="$engine" 'BEGIN { printf "%.3f", e / u }')
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "$n,$c,$pps,$p99,$ratio,$load" >> "$OUT"
    printf '| %s | %s | %s | %s | %s |\n' "$n" "$c" "$pps" "$p99" "$ratio"
  done
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
