#!/usr/bin/env bash
# Preemption and pod priority end to end on simulated nodes: policy-scheduler runs as a host
# process under its own schedulerName against three 2-cpu nodesim nodes.
#   (a) PriorityClasses reach spec.priority through the API server's Priority admission: a
#       user class (value 10) and system-cluster-critical (2000000000);
#   (b) a Deployment of low-priority pods fills every node (two 900m pods each);
#   (c) a system-cluster-critical pod asking 1500m fits nowhere: it is nominated to one node
#       (status.nominatedNodeName), both Deployment pods there are deleted with a
#       "Preempted" event naming it, each first marked DisruptionTarget=True (reason
#       PreemptionByScheduler, as 1.26+ does), and it is bound to that node;
#   (d) the Deployment's replacement pods do not take the freed room (the nomination keeps
#       it) and stay Pending with FailedScheduling in upstream's words
#       ("0/3 nodes are available: 3 Insufficient cpu."), PodScheduled=False/Unschedulable;
#   (e) a pod with preemptionPolicy: Never and a high priority preempts nothing;
#   (f) with an extender that has a preemptVerb (nodeCacheCapable), the scheduler sends it
#       the candidates and their victims by uid and keeps what it answers: it keeps pe-2
#       only, so a system-node-critical pod is nominated there and pe-2's pods are its victims.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
NS=sched-preempt
SCHED=preempt-scheduler
NODES=(pe-0 pe-1 pe-2)
NS_PID=
SCHED_PID=
EXT_PID=
WATCH_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-preemption.log"

# Later scripts share this plane: nothing of this one may stay behind.
cleanup() {
  stop_pid "$WATCH_PID"
  stop_pid "$SCHED_PID"
  stop_pid "$EXT_PID"
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
    kubectl delete priorityclass preempt-low preempt-high --ignore-not-found
  } >/dev/null 2>&1
  plane_nodes_cleanup preempt
  rm -rf "$T"
}
trap cleanup EXIT

plane_nodes_up preempt "three 2-cpu nodes" --nodes 3 --name-prefix pe --cpu 2 --memory 8Gi

cat > "$T/policy.json" <<JSON
{
  "kind": "Policy", "apiVersion": "v1",
  "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
  "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]
}
JSON
plane_scheduler_start "$LOG" "$T/policy.json" -v 2
wait_for "policy-scheduler becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"
kubectl create namespace "$NS" >/dev/null

# ---- (a) priority classes
plane_priority_class preempt-low 10 "preemption e2e: the Deployment's pods"
plane_priority_class preempt-high 1000000 "preemption e2e: high, but never preempts" Never
setup "system-cluster-critical and system-node-critical exist on the plane" \
  kubectl get priorityclass system-cluster-critical system-node-critical

# ---- (b) the Deployment fills the nodes
kubectl apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: filler, namespace: $NS}
spec:
  replicas: 6
  selector: {matchLabels: {app: filler}}
  template:
    metadata: {labels: {app: filler}}
    spec:
      schedulerName: $SCHED
      priorityClassName: preempt-low
      terminationGracePeriodSeconds: 1
      containers:
      - {name: app, image: preempt-filler, resources: {requests: {cpu: 900m, memory: 64Mi}}}
YAML
bound_count() { kubectl -n "$NS" get pods -l app=filler -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c .; }
all_filler_bound() { [ "$(bound_count)" -eq 6 ]; }
wait_for "the Deployment's six 900m pods are bound, two per node" 60 all_filler_bound
check_eq "two filler pods on each node" "2 2 2" \
  "$(kubectl -n "$NS" get pods -l app=filler -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort | uniq -c | awk '{printf "%s%s", sep, $1; sep=" "}')"
check_eq "the user class's value is each filler pod's spec.priority (Priority admission)" "10" \
  "$(kubectl -n "$NS" get pods -l app=filler -o jsonpath='{range .items[*]}{.spec.priority}{"\n"}{end}' | sort -u)"
kubectl -n "$NS" get pods -l app=filler -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.spec.nodeName}{"\n"}{end}' > "$T/before"

# ---- (e) first: preemptionPolicy Never preempts nothing
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: never, namespace: $NS}
spec:
  schedulerName: $SCHED
  priorityClassName: preempt-high
  containers:
  - {name: app, image: preempt-never, resources: {requests: {cpu: 1500m, memory: 64Mi}}}
YAML
never_unschedulable() {
  [ "$(kubectl -n "$NS" get pod never -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')" = Unschedulable ]
}
wait_for "the preemptionPolicy: Never pod is reported Unschedulable" 30 never_unschedulable
# the FailedScheduling event is written after the attempt's preemption decision (and its
# deletions, had there been any): its arrival is what lets "nothing was preempted" be said
never_failed_event() {
  kubectl -n "$NS" get events --field-selector reason=FailedScheduling,involvedObject.name=never -o name | grep -q .
}
wait_for "... with a FailedScheduling event" 30 never_failed_event
check_eq "it is not nominated anywhere" "" "$(kubectl -n "$NS" get pod never -o jsonpath='{.status.nominatedNodeName}')"
check "and no filler pod was preempted for it" all_filler_bound
check_eq "its priority comes from its class, preemptionPolicy too" "1000000 Never" \
  "$(kubectl -n "$NS" get pod never -o jsonpath='{.spec.priority} {.spec.preemptionPolicy}')"
kubectl -n "$NS" delete pod never --grace-period=0 --force >/dev/null 2>&1

# ---- (c) the critical pod
# every version of the namespace's pods from here on: the victims' last ones carry the condition
kubectl -n "$NS" get pods --watch --output-watch-events -o json > "$T/watch.json" 2>/dev/null &
WATCH_PID=$!
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: critical, namespace: $NS}
spec:
  schedulerName: $SCHED
  priorityClassName: system-cluster-critical
  containers:
  - {name: app, image: preempt-critical, resources: {requests: {cpu: 1500m, memory: 64Mi}}}
YAML
check_eq "system-cluster-critical gives spec.priority 2000000000" "2000000000" \
  "$(kubectl -n "$NS" get pod critical -o jsonpath='{.spec.priority}')"
critical_bound() { [ -n "$(kubectl -n "$NS" get pod critical -o jsonpath='{.spec.nodeName}')" ]; }
wait_for "the critical pod is bound" 60 critical_bound
NODE=$(kubectl -n "$NS" get pod critical -o jsonpath='{.spec.nodeName}')
check_eq "it was nominated to the node it is bound to" "$NODE" \
  "$(kubectl -n "$NS" get pod critical -o jsonpath='{.status.nominatedNodeName}')"
VICTIMS=$(awk -v n="$NODE" '$2 == n { print $1 }' "$T/before" | sort)
gone() { for v in $VICTIMS; do kubectl -n "$NS" get pod "$v" >/dev/null 2>&1 && return 1; done; return 0; }
check "both filler pods that were on $NODE are gone" gone
stop_pid "$WATCH_PID"
disruption_targets() {
  jq -rs --arg m "$SCHED: preempting to accommodate a higher priority pod" '[.[] | .object // . |
    select(any(.status.conditions[]?; .type == "DisruptionTarget" and .status == "True" and
      .reason == "PreemptionByScheduler" and .message == $m)) | .metadata.name] | unique | .[]' "$T/watch.json"
}
check_eq "each victim was marked DisruptionTarget (PreemptionByScheduler) before its deletion" "$VICTIMS" \
  "$(disruption_targets | sort)"
preempted_events() {
  kubectl -n "$NS" get events --field-selector reason=Preempted -o jsonpath='{range .items[*]}{.regarding.name}{.involvedObject.name}{" "}{.note}{.message}{"\n"}{end}' | sort
}
want_events=$(for v in $VICTIMS; do echo "$v Preempted by $NS/critical on node $NODE"; done)
wait_for "each victim has a Preempted event naming the preemptor" 20 bash -c "[ \"\$(kubectl -n $NS get events --field-selector reason=Preempted -o name | wc -l)\" -ge 2 ]"
check_eq "the Preempted events" "$want_events" "$(preempted_events)"
check_eq "no filler pod on another node was touched" \
  "$(awk -v n="$NODE" '$2 != n' "$T/before" | sort)" \
  "$(kubectl -n "$NS" get pods -l app=filler -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.spec.nodeName}{"\n"}{end}' | awk '$2 != ""' | sort)"

# ---- (d) the replacements stay Pending
pending_replacements() {
  [ "$(kubectl -n "$NS" get pods -l app=filler --field-selector spec.nodeName= -o name | wc -l)" -eq 2 ] || return 1
  local p
  for p in $(kubectl -n "$NS" get pods -l app=filler --field-selector spec.nodeName= -o name); do
    [ "$(kubectl -n "$NS" get "$p" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')" = Unschedulable ] || return 1
  done
}
wait_for "the Deployment's two replacements are Pending and Unschedulable" 30 pending_replacements
# Unschedulable pods are tried again on a node change: one is made, and the scheduler's
# count of unschedulable attempts must pass both replacements' retries before "still
# Pending" means anything.
a0=$(unschedulable_attempts)
kubectl label node pe-0 e2e-poke=1 --overwrite >/dev/null
wait_for "after a node change the scheduler tries both replacements again" 60 unschedulable_attempts_reach $((a0 + 2))
check "they are still Pending after those attempts" pending_replacements
msgs=$(for p in $(kubectl -n "$NS" get pods -l app=filler --field-selector spec.nodeName= -o name); do
  kubectl -n "$NS" get "$p" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}{"\n"}'; done | sort -u)
check_eq "their message is upstream's" "0/3 nodes are available: 3 Insufficient cpu." "$msgs"
check_match "FailedScheduling events say the same" "0/3 nodes are available: 3 Insufficient cpu." \
  "$(kubectl -n "$NS" get events --field-selector reason=FailedScheduling -o jsonpath='{range .items[*]}{.note}{.message}{"\n"}{end}')"
check_eq "the critical pod is alone on $NODE" "critical" \
  "$(kubectl -n "$NS" get pods --field-selector spec.nodeName="$NODE" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')"
# upstream's preemption metrics: every attempt counted, the victims of each preemption observed
metric() { curl -sf "http://127.0.0.1:$PORT/metrics" | awk -v k="$1" '$1 == k {print $2}'; }
attempts=$(metric scheduler_preemption_attempts_total)
check "scheduler_preemption_attempts_total counts the critical pod's and the replacements' attempts ($attempts)" \
  test "${attempts:-0}" -ge 2
check_eq "scheduler_preemption_victims observed one preemption of two victims" "1 2 0 1" \
  "$(metric scheduler_preemption_victims_count) $(metric scheduler_preemption_victims_sum) $(metric 'scheduler_preemption_victims_bucket{le="1"}') $(metric 'scheduler_preemption_victims_bucket{le="2"}')"

# ---- (f) an extender narrows the candidates
stop_pid "$SCHED_PID"
SCHED_PID=
EXT_PORT=$(free_port)
cat > "$T/extender.py" <<'PY'
import json, sys
import extender_http

port, log = int(sys.argv[1]), sys.argv[2]

def answer(path, args):
    with open(log, "a") as f:
        # v1.20's untagged ExtenderPreemptionArgs: Go field names, the unused map null
        f.write(json.dumps({"path": path, "nodes": sorted((args.get("NodeNameToMetaVictims") or {}).keys()),
                            "whole": args.get("NodeNameToVictims") is not None}) + "\n")
    m = args.get("NodeNameToMetaVictims") or {}
    return {"nodeNameToMetaVictims": {k: v for k, v in m.items() if k == "pe-2"}}

extender_http.serve(port, answer)
PY
plane_extender_start preempt "$T/extender.py" "$T/extender.log"
cat > "$T/policy-ext.json" <<JSON
{
  "kind": "Policy", "apiVersion": "v1",
  "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
  "priorities": [{"name": "LeastRequestedPriority", "weight": 1}],
  "extenders": [{"urlPrefix": "http://127.0.0.1:$EXT_PORT", "preemptVerb": "preempt",
                 "nodeCacheCapable": true, "weight": 1}]
}
JSON
"$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$T/policy-ext.json" \
  --scheduler-name "$SCHED" --leader-elect=false --bind-address 127.0.0.1 --port "$PORT" --secure-port 0 -v 2 \
  >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "policy-scheduler with the preempting extender becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"
ON_PE2=$(kubectl -n "$NS" get pods --field-selector spec.nodeName=pe-2 -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | sort)
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: critical2, namespace: $NS}
spec:
  schedulerName: $SCHED
  priorityClassName: system-node-critical
  containers:
  - {name: app, image: preempt-critical, resources: {requests: {cpu: 1500m, memory: 64Mi}}}
YAML
critical2_bound() { [ -n "$(kubectl -n "$NS" get pod critical2 -o jsonpath='{.spec.nodeName}')" ]; }
wait_for "the system-node-critical pod is bound" 60 critical2_bound
check_eq "it went where the extender left the only candidate" "pe-2 pe-2" \
  "$(kubectl -n "$NS" get pod critical2 -o jsonpath='{.status.nominatedNodeName} {.spec.nodeName}')"
check_eq "the extender was asked once, by uid, with every node where preemption helps" \
  '{"path": "/preempt", "nodes": ["pe-0", "pe-1", "pe-2"], "whole": false}' "$(cat "$T/extender.log")"
check_eq "pe-2's pods were its victims" "$ON_PE2" \
  "$(kubectl -n "$NS" get events --field-selector reason=Preempted -o json | jq -r '.items[] | select((.note // .message) | test("critical2")) | .regarding.name // .involvedObject.name' | sort)"
stop_pid "$EXT_PID"

finish
