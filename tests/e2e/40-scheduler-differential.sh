#!/usr/bin/env bash
# Differential test of the bundled scheduler against upstream kube-scheduler v1.20. The same
# six simulated nodes (tests/data/sched-diff/nodes.json: sizes, zones, taints, images, one
# cordoned) and, per phase, the same policy and workload; each scheduler in turn places the
# workload's pods one at a time, in order, each waited for until it is bound or reported
# unschedulable, and the placements and failure messages must be identical. The phases, in
# the order they run:
#
#   node-fit         a policy of node predicates and priorities (resources, ports,
#                    selectors, affinity, taints, images, init containers)
#   default-policy   the documented default policy (deploy/policy.cfg) with selector
#                    spreading, required and preferred pod (anti-)affinity, and volumes (a
#                    zonal PV, a local WaitForFirstConsumer PV, missing claims)
#   topology-spread  topology spread constraints (EvenPodsSpread and its priority),
#                    labelsPresence, labelPreference, MostRequestedPriority
#
# Ties are broken at random by both, so the workloads are built so that every pod has one
# best node; both schedulers run at -v=10, where each logs every scored node's total, and
# the test also checks that claim on both logs (a workload edit that introduces a tie fails
# here rather than flaking later).
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
. "$ROOT/tests/lib/sched-diff.sh"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir)
DATA=tests/data/sched-diff
NODES=($(jq -r '.[].name' "$DATA/nodes.json"))
NS_PID=
SCHED_PID=
ROUND_NS=

# Later scripts share this plane: nothing of this one may stay behind.
cleanup() {
  stop_pid "$SCHED_PID"
  {
    kubectl get ns -o name | grep '^namespace/diff-' | xargs -r kubectl delete --wait=false
    kubectl get pv -o name | grep '^persistentvolume/diff-' | xargs -r kubectl delete --wait=false
    kubectl get storageclass -o name | grep '/diff-' | xargs -r kubectl delete
  } >/dev/null 2>&1
  plane_nodes_cleanup diff
  rm -rf "$T"
}
trap cleanup EXIT

# Placements and failure summaries count every node on the plane: earlier scripts' nodes
# must be gone first.
plane_nodes_up diff "the ${#NODES[@]} nodes of the comparison" --nodes-file "$DATA/nodes.json"

# The checker's control: a round in which a pod has no outcome fails (its pod names a
# scheduler that does not run).
fails() { ! "$@"; }
DIFF_OUTCOME_SECONDS=3 check "a round where a pod has no outcome fails (control: $DATA/control-no-outcome)" \
  fails run_round control-no-outcome ours
check_match "the control names the pod" 'c01-unserved no outcome' "$(cat "$T/control-no-outcome-ours.out")"

for phase in node-fit default-policy topology-spread; do
  desc=$(jq -r '.description' "$DATA/$phase/phase.json")
  for who in upstream ours; do
    check "$phase: kube-scheduler v1.20 and policy-scheduler each place the workload ($who)" run_round "$phase" "$who"
  done
  # pod by pod, so a difference names the pod
  n=$(wc -l < "$T/$phase-upstream.out")
  check_eq "$phase: both saw the same $n pods" "$(cut -d' ' -f1 "$T/$phase-upstream.out")" "$(cut -d' ' -f1 "$T/$phase-ours.out")"
  diffs=$(diff "$T/$phase-upstream.out" "$T/$phase-ours.out" | grep '^[<>]' | sed 's/^</upstream:/; s/^>/ours:    /')
  check_eq "$phase ($desc): same placements and failure messages for all $n pods" "" "$diffs"
  check_eq "$phase: every pod had an outcome" "" "$(grep -h 'no outcome\|create failed' "$T/$phase"-*.out)"
  check_eq "$phase: the workload has pods of both outcomes" "yes yes" \
    "$(grep -q ' df-[0-9]*$' "$T/$phase-ours.out" && echo yes) $(grep -q ' unschedulable: ' "$T/$phase-ours.out" && echo yes)"
  for who in upstream ours; do
    check_eq "$phase: every pod had one best node ($who's -v=10 scores)" "" \
      "$(ties "$who" "$CLUSTER_DIR/logs/sched-diff-$phase-$who.log")"
  done
  sed 's/^/# /' "$T/$phase-ours.out"
done

finish
