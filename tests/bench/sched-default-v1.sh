#!/usr/bin/env bash
# The scheduler core in memory with kube-scheduler 1.32's default profile (an empty
# kubescheduler.config.k8s.io/v1 file through the one loader, as policy-scheduler --config
# runs it): bench-sched-default's plain, spread (zone DoNotSchedule + hostname
# ScheduleAnyway, maxSkew 1) and existing-pods cases at 5,000 nodes, up to 100,000 pods
# already bound. Writes $BENCH_DIR/sched-default-v1.csv (tools/bench-plots draws
# sched-default-v1.svg) and a line with the figures at 100,000 existing pods beside the
# targets the product sets itself (10,000 plain pods/s, 5,000 with topology spread; one core).
#   V1_BENCH_EXISTING (0,10000,50000,100000), V1_BENCH_SERIES_PODS (2000), V1_BENCH_BUDGET (6);
#   further arguments go to bench-sched-default (--nodes N, --pods N: a smaller run)
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build/default}
OUT=${BENCH_DIR:-build/bench}/sched-default-v1.csv
mkdir -p "$(dirname "$OUT")"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n' > "$T/v1.yaml"
"$O/bench/bench-sched-default" --config "$T/v1.yaml" --cases plain,spread,existing \
  --existing "${V1_BENCH_EXISTING:-0,10000,50000,100000}" --series-pods "${V1_BENCH_SERIES_PODS:-2000}" \
  --budget "${V1_BENCH_BUDGET:-6}" --csv "$OUT" "$@"
python3 - "$OUT" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["section"] == "existing"]
top = max(int(r["existing_pods"]) for r in rows)
at = {r["case"]: float(r["pods_per_s"]) for r in rows if int(r["existing_pods"]) == top}
print("1.32 default profile, %d existing pods: plain %.0f pods/s (target 10,000), spread %.0f pods/s (target 5,000)"
      % (top, at.get("plain", 0), at.get("spread", 0)))
PY
