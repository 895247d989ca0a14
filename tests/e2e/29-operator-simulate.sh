#!/usr/bin/env bash
# kubectl scheduler-policy simulate on a plane with 50 simulated nodes and 500 running pods,
# for the profile switch LowNodeUtilization (the serving revision) -> HighNodeUtilization,
# against what is computed here by hand, and run as a service account that may only get and
# list: it changes nothing (the nodes' and pods' resourceVersions, the Events).
#
# The workload: nodes sim-0..sim-49, 10 cpu / 40Gi each; 500 pods of 100m / 400Mi bound by
# spec.nodeName (no scheduler involved), 59 on sim-0 and 9 on each other node; the operator
# stack's own nodes are tainted so the pods fit only the sim nodes. Rescheduled now, each pod
# against the cluster without itself:
#   LowNodeUtilization (fewest requests wins): a pod of sim-0 (58 others left) goes to a node
#     with 9 pods, so the 59 of sim-0 move; a pod of a 9-pod node has 8 left there against 9
#     elsewhere (scores 91 against 90), so the 441 others stay.
#   HighNodeUtilization (most requests wins): every pod goes to sim-0 (58 or 59 pods against
#     9), so the 59 of sim-0 stay and the 441 others move; the two place all 500 apart.
# Then the namespace gets a project node selector (openshift.io/node-selector) only sim-1
# satisfies: under both, every pod goes to sim-1.
. "$(dirname "$0")/../lib/stack-script.sh"
NS=simulate-e2e-$$
N_NODES=50
SIM_NODES=()
for i in $(seq 0 $((N_NODES - 1))); do SIM_NODES+=("sim-$i"); done
cleanup() {
  [ -n "${SIM_PID:-}" ] && kill "$SIM_PID" 2>/dev/null && wait "$SIM_PID" 2>/dev/null
  stack_nodesim_stop
  kubectl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1
  api_delete "${SIM_NODES[@]/#//api/v1/nodes/}"
  kubectl delete clusterrolebinding simulate-reader clusterrole simulate-reader --ignore-not-found >/dev/null 2>&1
  kubectl taint node node-1 node-2 simulate-e2e- >/dev/null 2>&1
  # the operator scripts after this one on the plane start from nothing: no ClusterOperator
  # CRD, source ConfigMap, revision or scheduler pod of this script's
  stack_reset_operator_state >/dev/null 2>&1
}

condition() { kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"$1\")].status}"; }
settled() { [ "$(condition Progressing)" = False ] && [ "$(condition Available)" = True ] &&
  [ -n "$(kubectl get scheduler cluster -o jsonpath='{.status.revision}')" ]; }

check "the stack installs (kubectl apply -k)" stack_install
check "nodesim brings up the stack's three nodes" stack_nodesim_start
stack_operator_start simulate > /dev/null
wait_for "the operator has a serving revision" 150 settled
check "the stack's nodes take no more pods" \
  kubectl taint node node-1 node-2 simulate-e2e=stack:NoSchedule --overwrite

# No node status heartbeat while the test looks at the nodes' resourceVersions.
"$BIN_DIR/nodesim" --nodes $N_NODES --name-prefix sim --cpu 10 --memory 40Gi --pods 110 \
  --status-interval 3600 --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/nodesim" --pid-file "$CLUSTER_DIR/pids/nodesim-simulate.pid" \
  >> "$CLUSTER_DIR/logs/nodesim-simulate.log" 2>&1 &
SIM_PID=$!
sim_ready() { [ "$(kubectl get nodes --no-headers 2>/dev/null | grep -c '^sim-[0-9]* *Ready ')" -eq $N_NODES ]; }
wait_for "nodesim registers $N_NODES Ready nodes" 60 sim_ready

kubectl create namespace "$NS" >/dev/null
python3 - "$NS" > "$T/pods.json" <<'PY'
import json, sys
ns = sys.argv[1]
items = []
def pod(i, node):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p-%03d" % i, "namespace": ns},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "registry.local/app:v1",
                     "resources": {"requests": {"cpu": "100m", "memory": "400Mi"}}}]}}
i = 0
for node, count in [("sim-0", 59)] + [("sim-%d" % n, 9) for n in range(1, 50)]:
    for _ in range(count):
        items.append(pod(i, node)); i += 1
print(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
PY
check "500 pods are created bound to the sim nodes" kubectl create -f "$T/pods.json" -o name
running() { [ "$(kubectl -n "$NS" get pods --field-selector=status.phase=Running --no-headers 2>/dev/null | wc -l)" -eq 500 ]; }
wait_for "the 500 pods run" 120 running

# A service account that may only get and list what simulate reads.
kubectl create clusterrole simulate-reader --verb=get,list \
  --resource=nodes,pods,services,replicationcontrollers,replicasets.apps,statefulsets.apps,configmaps,schedulers.config.openshift.io,namespaces,persistentvolumes,persistentvolumeclaims,storageclasses.storage.k8s.io,csinodes.storage.k8s.io \
  >/dev/null
kubectl -n "$NS" create serviceaccount reader >/dev/null
kubectl create clusterrolebinding simulate-reader --clusterrole=simulate-reader --serviceaccount="$NS:reader" >/dev/null
sa_kubeconfig "$NS" reader "$T/reader.kubeconfig"
check "the reader may not write (RBAC)" \
  test "$(kubectl --kubeconfig "$T/reader.kubeconfig" auth can-i create pods -A 2>/dev/null)" = no

versions() {
  { kubectl get nodes "${SIM_NODES[@]}" -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.resourceVersion}{"\n"}{end}'
    kubectl -n "$NS" get pods -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.resourceVersion}{"\n"}{end}'
  } | sort
}
events() { # the workload's and the sim nodes' Events
  { kubectl -n "$NS" get events --no-headers 2>/dev/null
    kubectl get events -A --field-selector involvedObject.kind=Node --no-headers 2>/dev/null | grep ' node/sim-'
  } | wc -l
}
versions > "$T/before"
E0=$(events)

plugin() { "$BIN_DIR/kubectl-scheduler_policy" --kubeconfig "$T/reader.kubeconfig" "$@"; }
start=$(date +%s%N)
plugin simulate --profile HighNodeUtilization -o json > "$T/sim.json" 2> "$T/sim.err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_eq "simulate exits 0 as a reader" 0 "$rc"
[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/sim.err"
echo "# simulate took $ms ms"
check_match "the active configuration is the serving revision" "^revision [0-9]+ \(serving\)$" \
  "$(jq -r .active "$T/sim.json")"
check_eq "the candidate is the profile's plugin set" "profile/HighNodeUtilization" "$(jq -r .candidate "$T/sim.json")"
mine() { jq -r --arg ns "$NS/" "[.moves[] | select(.pod | startswith(\$ns)) | $1] | length" "$T/sim.json"; }
check_eq "LowNodeUtilization: the 59 pods of sim-0 would move" 59 "$(mine 'select(.active != .node)')"
check_eq "... all of them from sim-0, each to another sim node" 59 \
  "$(mine 'select(.active != .node and .node == "sim-0" and (.active | test("^sim-[1-9][0-9]?$")))')"
check_eq "HighNodeUtilization: the 441 pods of the other nodes would move" 441 "$(mine 'select(.candidate != .node)')"
check_eq "... all of them onto sim-0" 441 "$(mine 'select(.candidate != .node and .candidate == "sim-0")')"
check_eq "the two configurations place all 500 apart" 500 "$(mine 'select(.active != .candidate)')"
check_eq "no pod of the workload is unplaceable on either side" 0 \
  "$(mine 'select(.active == null or .candidate == null)')"
check_eq "no pending pod changes fate" "0 0" \
  "$(jq -r '"\(.becameSchedulable | length) \(.becameUnschedulable | length)"' "$T/sim.json")"
load() { jq -r --arg n "$1" ".nodeLoad[] | select(.node == \$n) | $2" "$T/sim.json"; }
check_eq "sim-0's load: no pod under LowNodeUtilization" 0 "$(load sim-0 .active.pods)"
check "... at least the 500 under HighNodeUtilization" test "$(load sim-0 .candidate.pods)" -ge 500
check_eq "... their cpu requests: 50000m or more" 1 "$(load sim-0 '(.candidate.milliCPU >= 50000) | if . then 1 else 0 end')"
check_eq "sim-1 empties under HighNodeUtilization" 0 "$(load sim-1 .candidate.pods)"
check "sim-1 keeps at least its 9 pods under LowNodeUtilization" test "$(load sim-1 .active.pods)" -ge 9

out=$(plugin simulate --profile HighNodeUtilization 2>&1)
check_match "the table says how many would move" \
  "Running pods rescheduled now: active places [0-9]+ on another node \([0-9]+ nowhere\), candidate [0-9]+" "$out"
check_match "... and lists sim-0's load" "^sim-0 +0\(0%\) +[0-9]+\([0-9]+%\)" "$(grep '^sim-0 ' <<<"$out")"
same=$(plugin simulate --profile HighNodeUtilization -o json | jq -c '.moves')
check_eq "a second run decides alike" "$(jq -c .moves "$T/sim.json")" "$same"
out=$(plugin simulate --profile LowNodeUtilization -o json)
check_eq "the serving profile against itself: nothing placed apart" 0 "$(jq -r .runningPlacedApart <<<"$out")"

versions > "$T/after"
check "the nodes' and pods' resourceVersions are unchanged" cmp -s "$T/before" "$T/after"
check_eq "no Event was written" "$E0" "$(events)"
# The project node selector: the namespace annotated openshift.io/node-selector
# simulate-zone=a, which only sim-1 has. Rescheduled now, every pod is queued with the
# selector merged in (the NodeAffinity filter of both profiles holds it to sim-1): the 491
# pods of the other nodes move there under both, and the two place none apart.
kubectl label node sim-1 simulate-zone=a >/dev/null
kubectl annotate namespace "$NS" openshift.io/node-selector=simulate-zone=a >/dev/null
plugin simulate --profile HighNodeUtilization -o json > "$T/sel.json"
mine_sel() { jq -r --arg ns "$NS/" "[.moves[] | select(.pod | startswith(\$ns)) | $1] | length" "$T/sel.json"; }
check_eq "a project node selector: under LowNodeUtilization the 491 pods off sim-1 move to sim-1" 491 \
  "$(mine_sel 'select(.node != "sim-1" and .active == "sim-1")')"
check_eq "... and under HighNodeUtilization" 491 "$(mine_sel 'select(.node != "sim-1" and .candidate == "sim-1")')"
check_eq "... no pod is placed elsewhere, and the two place none apart" "0 0" \
  "$(mine_sel 'select(.active != "sim-1" or .candidate != "sim-1")') $(jq -r .runningPlacedApart "$T/sel.json")"
kubectl annotate namespace "$NS" openshift.io/node-selector- >/dev/null
kubectl label node sim-1 simulate-zone- >/dev/null

out=$(plugin simulate --profile NoSuchProfile 2>&1); rc=$?
check_eq "an unknown profile is a usage error" 2 "$rc"
check_match "... naming the profiles" "is not a profile \(LowNodeUtilization, HighNodeUtilization, NoScoring\)" "$out"
finish
