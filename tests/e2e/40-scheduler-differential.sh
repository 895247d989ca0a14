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
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/e2e.sh"
cd "$ROOT" || exit 1
BIN_DIR=${BIN_DIR:-build/default/bin}
BIN_DIR=$(cd "$BIN_DIR" 2>/dev/null && pwd) || { echo "not ok 1 - binaries missing in ${BIN_DIR} (make all)"; exit 1; }
: "${CLUSTER_DIR:?run under tools/with-cluster}"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir)
DATA=tests/data/sched-diff
T=$(mktemp -d)
NODES=($(jq -r '.[].name' "$DATA/nodes.json"))
NS_PID=
SCHED_PID=
ROUND_NS=

# Later scripts share this plane: nothing of this one may stay behind.
cleanup() {
  stop_pid "$SCHED_PID"
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-diff.pid"
  {
    kubectl get ns -o name | grep '^namespace/diff-' | xargs -r kubectl delete --wait=false
    kubectl get pv -o name | grep '^persistentvolume/diff-' | xargs -r kubectl delete --wait=false
    kubectl get storageclass -o name | grep '/diff-' | xargs -r kubectl delete
    kubectl delete node "${NODES[@]}" --ignore-not-found --wait=false
    kubectl delete lease -n kube-node-lease "${NODES[@]}" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

# Placements and failure summaries count every node on the plane: earlier scripts' nodes
# must be gone first.
wait_for "no other script's nodes are left on the plane" 30 only_nodes "${NODES[@]}"

"$BIN_DIR/nodesim" --nodes-file "$DATA/nodes.json" \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/nodesim" --pid-file "$CLUSTER_DIR/pids/nodesim-diff.pid" \
  >> "$CLUSTER_DIR/logs/nodesim-diff.log" 2>&1 &
NS_PID=$!
wait_for "nodesim registers the ${#NODES[@]} nodes of the comparison" 30 nodes_ready "${NODES[@]}"

# start_scheduler WHO POLICY LOG: one scheduler of the comparison, verbose, under its own name.
start_scheduler() {
  local who=$1 policy=$2 log=$3 port
  port=$(free_port)
  if [ "$who" = upstream ]; then
    # DefaultPodTopologySpread (beta, on in v1.20) turns the policy's SelectorSpreadPriority
    # into PodTopologySpread with system default constraints; OpenShift 4.x documents the
    # classic SelectorSpread, which is what the bundled scheduler runs, so compare with that.
    "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$policy" \
      --scheduler-name diff-upstream --leader-elect=false --address 127.0.0.1 --port "$port" \
      --secure-port 0 --kube-api-qps 1000 --kube-api-burst 1000 \
      --feature-gates DefaultPodTopologySpread=false -v 10 > "$log" 2>&1 &
  else
    "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$policy" \
      --scheduler-name diff-ours --leader-elect=false --bind-address 127.0.0.1 --port "$port" --secure-port 0 \
      -v 10 > "$log" 2>&1 &
  fi
  SCHED_PID=$!
  local i
  for i in $(seq 1 150); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && return 0
    kill -0 "$SCHED_PID" 2>/dev/null || break
    sleep 0.2
  done
  echo "$who scheduler did not come up; its log:" >&2
  tail -20 "$log" >&2
  return 1
}

# outcome NS POD: "POD NODE" once bound, "POD unschedulable: MESSAGE" once reported
# unschedulable; fails while neither.
outcome() {
  local got node status msg
  got=$(kubectl -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}{"|"}{.status.conditions[?(@.type=="PodScheduled")].status}{"|"}{.status.conditions[?(@.type=="PodScheduled")].message}') || return 1
  IFS='|' read -r node status msg <<< "$got"
  if [ -n "$node" ]; then echo "$2 $node"; return 0; fi
  if [ "$status" = False ] && [ -n "$msg" ]; then echo "$2 unschedulable: $msg"; return 0; fi
  return 1
}

# run_round PHASE WHO: WHO places PHASE's workload; outcomes in $T/PHASE-WHO.out.
run_round() {
  local phase=$1 who=$2 ns="diff-$1-$2" log="$CLUSTER_DIR/logs/sched-diff-$1-$2.log"
  local policy out="$T/$1-$2.out" docs="$T/$1-$2.docs" doc kind name got i ref uid
  policy=$(jq -r '.policy' "$DATA/$phase/phase.json")
  ROUND_NS=$ns
  : > "$out"
  kubectl create namespace "$ns" >/dev/null || return 1
  start_scheduler "$who" "$policy" "$log" || return 1
  mkdir -p "$docs"
  # one file per YAML document, in order
  sed -e "s/@NS@/$ns/g" -e "s/@SCHED@/diff-$who/g" "$DATA/$phase/workload.yaml" |
    awk -v d="$docs" 'BEGIN { n = 0; f = sprintf("%s/%03d.yaml", d, n) }
      /^---$/ { n++; f = sprintf("%s/%03d.yaml", d, n); next } { print > f }'
  for doc in "$docs"/*.yaml; do
    grep -q '^kind:' "$doc" || continue
    kind=$(awk '/^kind:/ { print $2; exit }' "$doc")
    # @UID:KIND/NAME@: the uid of an object created earlier in the round
    for ref in $(grep -o '@UID:[^@]*@' "$doc" | sort -u); do
      uid=$(kubectl -n "$ns" get "${ref:5:-1}" -o jsonpath='{.metadata.uid}')
      sed -i "s|$ref|$uid|g" "$doc"
    done
    if ! kubectl create -f "$doc" >/dev/null; then
      echo "$(basename "$doc"): kubectl create failed" >> "$out"
      continue
    fi
    name=$(kubectl create --dry-run=client -o jsonpath='{.metadata.name}' -f "$doc")
    if [ "$kind" = PersistentVolumeClaim ] && grep -q 'volumeName:' "$doc"; then
      # pre-bound: the PV controller completes it before any pod needs it
      for i in $(seq 1 150); do
        [ "$(kubectl -n "$ns" get pvc "$name" -o jsonpath='{.status.phase}')" = Bound ] && break
        sleep 0.2
      done
    fi
    [ "$kind" = Pod ] || continue
    got=
    for i in $(seq 1 150); do
      got=$(outcome "$ns" "$name") && break
      got=
      sleep 0.2
    done
    echo "${got:-$name no outcome in 30s}" >> "$out"
    # an unschedulable pod leaves, so that nothing later depends on when it is retried
    [[ $got == *unschedulable:* ]] && kubectl -n "$ns" delete pod "$name" --grace-period=0 --force >/dev/null 2>&1
  done
  stop_pid "$SCHED_PID"
  SCHED_PID=
  # the next round starts from empty nodes
  kubectl -n "$ns" delete pods --all --grace-period=0 --force >/dev/null 2>&1
  kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1
  for i in $(seq 1 150); do
    [ -z "$(kubectl -n "$ns" get pods -o name 2>/dev/null)" ] && break
    sleep 0.2
  done
  # cluster-scoped objects of the round (PVs) go too
  kubectl get pv -o name | grep "^persistentvolume/$ns-" | xargs -r kubectl delete --wait=false >/dev/null 2>&1
  return 0
}

# ties WHO LOG: pods for which the scheduler's -v=10 log shows more than one best node.
ties() {
  if [ "$1" = upstream ]; then
    # v1.20 logs each score plugin's weighted scores per attempt:
    #   Plugin NodeAffinity scores on NS/POD => [{node-a 30} {node-b 0}]
    awk 'function flush(  n, max, k) {
           max = -1; n = 0
           for (k in sum) { if (sum[k] > max) { max = sum[k]; n = 1 } else if (sum[k] == max) n++ }
           if (n > 1) print pod " (" n " nodes at " max ")"
           if (n > 0) scored++
           delete sum
         }
         /Attempting to schedule pod: / { flush(); pod = $NF; next }
         / scores on .* => \[/ {
           line = substr($0, index($0, "=> [") + 4)
           while (match(line, /\{[^ }]+ -?[0-9]+\}/)) {
             split(substr(line, RSTART + 1, RLENGTH - 2), w, " "); sum[w[1]] += w[2]
             line = substr(line, RSTART + RLENGTH)
           }
         }
         END { flush(); if (!scored) print "no scores in the log" }' "$2"
  else
    grep -o 'scores for [^:]*: .*; chose [^ ]* ([0-9]* node' "$2" |
      awk '{ n = $(NF - 1); sub(/^\(/, "", n); if (n + 0 > 1) print $3 " (" n " nodes)" }
           END { if (!NR) print "no scores in the log" }'
  fi
}

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
