#!/usr/bin/env bash
# Every benchmark `make bench` runs, once, on a tiny size, so that none rots unnoticed
# between two bench runs: each bench binary (its --smoke or smallest arguments), the two
# end-to-end bench scripts with a few nodes and pods, the out-of-tree plugins' bench on 20
# nodes, and tools/bench-plots on the CSV files
# they wrote. It measures nothing. The benches run on a control plane of their own, started
# here (bench-operator leaves the operator's objects behind, the end-to-end benches register
# nodes), so the plane this script was given stays as it was.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
O=${O:-build/default}

if [ -z "${BENCH_SMOKE_DIR:-}" ]; then
  T=$(mktemp -d)
  trap 'rm -rf "$T"' EXIT
  BENCH_SMOKE_DIR=$T CLUSTER_DIR=$T/cluster O=$O tools/with-cluster "$0"
  exit
fi
T=$BENCH_SMOKE_DIR
export BENCH_DIR=$T/bench
mkdir -p "$BENCH_DIR"

# NAME ARGS... per bench binary; bench-sched-bind is the bind-only client e2e-sched.sh runs.
SMOKE=(
  "bench-kube-decode --smoke"
  "bench-policy --smoke"
  "bench-sched 50 100"
  "bench-sched-default --nodes 50 --pods 200 --series-pods 200 --existing 0,200 --budget 2"
  "bench-sched-preempt 50 200"
  "bench-sched-soak 20000 20"
  "bench-kube-informer"
  "bench-operator --smoke $O/bin/scheduler-operator"
  "bench-simulate --nodes 50 --pods 500"
)
covered=(bench-sched-bind)
for s in "${SMOKE[@]}"; do covered+=("${s%% *}"); done
check_eq "every bench binary in $O/bench has a tiny run here" "" \
  "$(ls "$O/bench" | grep -vxF -f <(printf '%s\n' "${covered[@]}"))"

for s in "${SMOKE[@]}"; do
  read -r -a cmd <<< "$s"
  check "${cmd[0]} runs on a tiny size" env KUBE_BENCH_OBJECTS=50 "$O/bench/${cmd[0]}" "${cmd[@]:1}"
done
check "bench-operator runs again on the same plane (its policy already named, revisions already written)" \
  "$O/bench/bench-operator" --smoke "$O/bin/scheduler-operator"
check "tests/bench/e2e-sched.sh runs policy-scheduler (the Policy, the default profile), kube-scheduler and the bind-only client on 3 nodes" \
  env E2E_NODES=3 E2E_PODS=6 E2E_TIMEOUT=120 O="$O" tests/bench/e2e-sched.sh
check "tests/bench/e2e-sched.sh runs kube-scheduler with the default profile on 3 nodes" \
  env E2E_NODES=3 E2E_PODS=6 E2E_TIMEOUT=120 E2E_RUNS=upstream-profile O="$O" tests/bench/e2e-sched.sh
check_eq "... each run is a row of e2e-sched.csv, all 6 pods bound" \
  "policy-scheduler 6|policy-scheduler default profile 6|kube-scheduler v1.20 6|bind-only client 6|kube-scheduler v1.20 default profile 6" \
  "$(tail -n +2 "$BENCH_DIR/e2e-sched.csv" 2>/dev/null | cut -d, -f2,4 | tr , ' ' | paste -sd'|')"
check "tests/bench/e2e-preempt.sh runs both schedulers on 2 nodes" \
  env E2E_NODES=2 E2E_PODS=2 E2E_TIMEOUT=120 O="$O" tests/bench/e2e-preempt.sh
check "tests/bench/sched-plugins.sh runs the engine alone, with each example plugin and with the extender twin on 20 nodes" \
  env PLUGIN_BENCH_NODES=20 PLUGIN_BENCH_PODS=50 PLUGIN_BENCH_EXT_PODS=20 PLUGIN_BENCH_ROUNDS=1 O="$O" tests/bench/sched-plugins.sh
check_eq "... and writes a row per configuration" "engine score filter extender" \
  "$(tail -n +2 "$BENCH_DIR/sched-plugins.csv" | cut -d, -f2 | tr '\n' ' ' | sed 's/ $//')"
check "tests/bench/sched-default-v1.sh runs 1.32's default profile (plain, spread, existing pods) on 50 nodes" \
  bash -c 'env O="$1" V1_BENCH_EXISTING=0,200 V1_BENCH_SERIES_PODS=100 V1_BENCH_BUDGET=1 \
    tests/bench/sched-default-v1.sh --nodes 50 --pods 100 > "$2"' _ "$O" "$BENCH_DIR/v1.out"
check_match "... and says its figures beside the targets" "^1.32 default profile, 200 existing pods: plain" \
  "$(tail -n 1 "$BENCH_DIR/v1.out")"
check "tools/bench-plots draws every chart from the CSV files" tools/bench-plots "$BENCH_DIR"
check_eq "the charts are written" "e2e-sched.svg sched-default-v1.svg sched-default.svg sched-plugins.svg" \
  "$(cd "$BENCH_DIR" && echo *.svg)"
finish
