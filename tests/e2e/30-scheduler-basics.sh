#!/usr/bin/env bash
# The bundled scheduler's basics, end to end on simulated nodes: policy-scheduler runs as a
# host process under its own schedulerName with a policy of node predicates and priorities
# and an HTTP extender (a small server in this script), against three nodesim nodes.
#   (a) plain pods are bound, with a Scheduled event;
#   (b) a pod that fits no node gets FailedScheduling with upstream's summary and
#       PodScheduled=False/Unschedulable, and is bound once a node that fits registers;
#   (c) the extender filters (its failure message reaches the summary) and its
#       prioritize score decides between nodes;
#   (d) the scheduler is killed (SIGKILL) in the middle of a burst of pods and started
#       again: every pod ends up bound exactly once.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
NS=sched-basics
SCHED=basics-scheduler
NODES=(sb-0 sb-1 sb-2)
BIG=sb-big-0   # nodesim names a single node PREFIX-0
NS_PID=
BIG_PID=
EXT_PID=
SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-basics.log"
BURST=300

# Later scripts share this plane: nothing of this one may stay behind.
cleanup() {
  stop_pid "$SCHED_PID"
  stop_pid "$EXT_PID"
  stop_pid "$BIG_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-basics-big.pid"
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  plane_nodes_cleanup basics "$BIG"
  rm -rf "$T"
}
trap cleanup EXIT

# Placements and failure summaries count every node on the plane: earlier scripts' nodes
# must be gone first.
plane_nodes_up basics "three 4-cpu nodes" --nodes 3 --name-prefix sb --cpu 4 --memory 8Gi

# ---- the extender: filter turns sb-0 away for pods labelled ext=picky, prioritize prefers
# ---- sb-2; every request is logged as one JSON line. It takes 30 ms over the burst's
# ---- pods so that (d) can kill the scheduler half-way.
EXT_PORT=$(free_port)
cat > "$T/extender.py" <<'PY'
import json, sys, time
import extender_http

port, log = int(sys.argv[1]), sys.argv[2]

def answer(path, args):
    # what v1.20 sends: its untagged types' Go field names, the unused list null
    pod = args.get("Pod") or {}
    names = extender_http.node_names(args)
    labels = pod.get("metadata", {}).get("labels") or {}
    picky = labels.get("ext") == "picky"
    if labels.get("burst"):
        time.sleep(0.03)
    with open(log, "a") as f:
        f.write(json.dumps({"verb": path, "pod": pod.get("metadata", {}).get("name"),
                            "nodenames": args.get("NodeNames")}) + "\n")
    if path == "/filter":
        keep = [n for n in names if not (picky and n == "sb-0")]
        return {"nodenames": keep,
                "failedNodes": {n: "extender: sb-0 is reserved" for n in names if n not in keep}}
    if path == "/prioritize":
        return [{"host": n, "score": 10 if n == "sb-2" else 0} for n in names]
    return None

extender_http.serve(port, answer)
PY
plane_extender_start basics "$T/extender.py" "$T/extender.log"

cat > "$T/policy.json" <<JSON
{
  "kind": "Policy", "apiVersion": "v1",
  "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"},
                 {"name": "CheckNodeUnschedulable"}],
  "priorities": [{"name": "LeastRequestedPriority", "weight": 1},
                 {"name": "BalancedResourceAllocation", "weight": 1}],
  "extenders": [{"urlPrefix": "http://127.0.0.1:$EXT_PORT", "filterVerb": "filter",
                 "prioritizeVerb": "prioritize", "weight": 5, "nodeCacheCapable": true,
                 "httpTimeout": 5000000000}]
}
JSON

PORT=$(free_port)
start_scheduler() {
  "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$T/policy.json" \
    --scheduler-name "$SCHED" --leader-elect=false --bind-address 127.0.0.1 --port "$PORT" --secure-port 0 \
    >> "$LOG" 2>&1 &
  SCHED_PID=$!
}
start_scheduler
wait_for "policy-scheduler with the extender policy becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"
kubectl create namespace "$NS" >/dev/null

pod_yaml() { # NAME CPU [LABELS]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $NS, labels: {${3:-}}}
spec:
  schedulerName: $SCHED
  containers:
  - {name: app, image: basics-app, resources: {requests: {cpu: "$2", memory: 64Mi}}}
YAML
}
events_of() { # POD REASON: the messages of its events with that reason
  kubectl -n "$NS" get events --field-selector "involvedObject.name=$1,reason=$2" \
    -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
}

# ---- (a) + (c): plain pods are bound; the extender's score sends them to sb-2 ----
pod_yaml plain-1 100m | kubectl apply -f - >/dev/null
wait_for "(a) a plain pod is bound" 30 pod_bound "$NS" plain-1
check_eq "(c) ... on the node the extender's prioritize prefers (weight 5 x 10)" sb-2 "$(pod_node "$NS" plain-1)"
has_event() { [ -n "$(events_of "$1" "$2")" ]; }
wait_for "(a) ... with a Scheduled event" 10 has_event plain-1 Scheduled
check_eq "(a) ... that says where" "Successfully assigned $NS/plain-1 to sb-2" "$(events_of plain-1 Scheduled)"
check_match "(c) the extender was asked by node name (nodeCacheCapable) to filter and prioritize plain-1" \
  '"verb": "/filter", "pod": "plain-1", "nodenames": \[.*"sb-0".*\].*"verb": "/prioritize", "pod": "plain-1"' \
  "$(tr '\n' ' ' < "$T/extender.log")"

# ---- (c): the extender's filter; its message is part of the failure summary ----
# picky pods need 3 of 4 cpus: sb-2 is taken by a 3-cpu pod first, sb-0 is refused by the
# extender, so sb-1 is the only place
pod_yaml hog 3 | kubectl apply -f - >/dev/null
wait_for "(c) a 3-cpu pod is bound" 30 pod_bound "$NS" hog
check_eq "(c) ... on sb-2, the extender's favourite" sb-2 "$(pod_node "$NS" hog)"
pod_yaml picky-1 3 "ext: picky" | kubectl apply -f - >/dev/null
wait_for "(c) a pod the extender keeps off sb-0 is bound" 30 pod_bound "$NS" picky-1
check_eq "(c) ... on sb-1, the only node left that fits" sb-1 "$(pod_node "$NS" picky-1)"
pod_yaml picky-2 3 "ext: picky" | kubectl apply -f - >/dev/null
unschedulable_msg() { # POD: the PodScheduled=False/Unschedulable message
  kubectl -n "$NS" get pod "$1" \
    -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}: {.status.conditions[?(@.type=="PodScheduled")].message}'
}
is_unschedulable() { [[ $(unschedulable_msg "$1") == False/Unschedulable:* ]]; }
wait_for "(c) a second picky pod fits nowhere" 30 is_unschedulable picky-2
check_eq "(c) ... and the summary carries the extender's reason next to the predicates'" \
  "False/Unschedulable: 0/3 nodes are available: 1 extender: sb-0 is reserved, 2 Insufficient cpu." \
  "$(unschedulable_msg picky-2)"
kubectl -n "$NS" delete pod picky-2 --grace-period=0 --force >/dev/null 2>&1

# ---- (b): fits no node -> FailedScheduling; a node that fits registers -> bound there ----
pod_yaml huge 16 | kubectl apply -f - >/dev/null
wait_for "(b) a 16-cpu pod is reported unschedulable" 30 is_unschedulable huge
check_eq "(b) ... with upstream's summary on its PodScheduled condition" \
  "False/Unschedulable: 0/3 nodes are available: 3 Insufficient cpu." "$(unschedulable_msg huge)"
wait_for "(b) ... and a FailedScheduling event" 10 has_event huge FailedScheduling
check_eq "(b) the event says the same" "0/3 nodes are available: 3 Insufficient cpu." \
  "$(events_of huge FailedScheduling | sort -u)"
"$BIN_DIR/nodesim" --nodes 1 --name-prefix sb-big --cpu 32 --memory 64Gi \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/nodesim-big" --pid-file "$CLUSTER_DIR/pids/nodesim-basics-big.pid" \
  >> "$CLUSTER_DIR/logs/nodesim-basics.log" 2>&1 &
BIG_PID=$!
big_bound() { [ "$(pod_node "$NS" huge)" = "$BIG" ]; }
wait_for "(b) once a 32-cpu node registers, the pod is bound to it" 30 big_bound

# ---- (d): SIGKILL in the middle of a burst, restart: every pod bound exactly once ----
for i in $(seq 1 $BURST); do pod_yaml "burst-$i" 10m "burst: \"yes\""; echo ---; done > "$T/burst.yaml"
kubectl apply -f "$T/burst.yaml" >/dev/null
n_bound() {
  kubectl -n "$NS" get pods -l burst=yes -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c .
}
some_bound() { local n; n=$(n_bound); [ "$n" -ge 20 ] || { echo "$n bound"; return 1; }; }
wait_for "(d) the burst starts being bound" 60 some_bound
kill -KILL "$SCHED_PID"
wait "$SCHED_PID" 2>/dev/null
at_kill=$(n_bound)
check "(d) the scheduler was killed with pods of the burst still pending ($at_kill of $BURST bound)" \
  test "$at_kill" -lt "$BURST"
start_scheduler
all_bound() { local n; n=$(n_bound); [ "$n" = "$BURST" ] || { echo "$n of $BURST bound"; return 1; }; }
wait_for "(d) after a restart every pod of the burst is bound" 120 all_bound
all_running() {
  local n
  n=$(kubectl get pods -n "$NS" -l burst=yes --field-selector status.phase=Running -o name 2>/dev/null | wc -l)
  [ "$n" = "$BURST" ] || { echo "$n of $BURST Running"; return 1; }
}
wait_for "(d) and running on its node (nodesim reports each one Running)" 60 all_running
metric() { curl -sf "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
check_eq "(d) the restarted scheduler never bound a pod that was already bound (no binding errors)" 0 \
  "$(metric 'scheduler_binding_total{result="error"}')"
check "the scheduler is still running" alive "$SCHED_PID"

finish
