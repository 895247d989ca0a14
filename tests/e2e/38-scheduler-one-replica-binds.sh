#!/usr/bin/env bash
# Only one replica ever binds: two policy-scheduler replicas elect a leader on one Lease,
# the policy has a slow HTTP extender (40 ms per call, a small server in this script), and a
# burst of pods arrives at once. The leader must keep its lease (renewals and health checks
# go on while it waits for the extender), so:
#   - the Lease keeps its holder for the whole burst and the leader's /healthz answers;
#   - every pod is bound, exactly once, with one Scheduled event reported by the leader;
#   - no bind fails (a second binder would get a conflict) on either replica;
#   - the standby binds nothing.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
# ONE_BINDER_PODS (default 600) and ONE_BINDER_EXT_MS (default 40) size the burst.
. "$(dirname "$0")/../lib/plane-script.sh"
NS=sched-one-binder
SCHED=one-binder-scheduler
NODES=(ob-0 ob-1 ob-2)
PODS=${ONE_BINDER_PODS:-600}
EXT_MS=${ONE_BINDER_EXT_MS:-40}
NS_PID= EXT_PID= A_PID= B_PID= PROBE_PID=
LOG_A="$CLUSTER_DIR/logs/policy-scheduler-one-binder-a.log"
LOG_B="$CLUSTER_DIR/logs/policy-scheduler-one-binder-b.log"

cleanup() {
  stop_pid "$PROBE_PID"
  stop_pid "$A_PID"
  stop_pid "$B_PID"
  stop_pid "$EXT_PID"
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
    kubectl -n kube-system delete lease "$SCHED" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  plane_nodes_cleanup one-binder
  rm -rf "$T"
}
trap cleanup EXIT

plane_nodes_up one-binder "three nodes" --nodes 3 --name-prefix ob --cpu 16 --memory 64Gi --pods 500

# ---- the slow extender: every call takes EXT_MS; it keeps every node, scores them all 0 ----
EXT_PORT=$(free_port)
cat > "$T/extender.py" <<'PY'
import sys, time
import extender_http

port, delay = int(sys.argv[1]), int(sys.argv[2]) / 1000.0

def answer(path, args):
    names = args.get("NodeNames") or []   # v1.20's untagged ExtenderArgs
    time.sleep(delay)
    if path == "/filter":
        return {"nodenames": names, "failedNodes": {}}
    if path == "/prioritize":
        return [{"host": n, "score": 0} for n in names]
    return None

# one thread per connection: each replica keeps its own connection open
extender_http.serve(port, answer, threaded=True)
PY
plane_extender_start one-binder "$T/extender.py" "$EXT_MS"

cat > "$T/policy.json" <<JSON
{
  "kind": "Policy", "apiVersion": "v1",
  "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
  "priorities": [{"name": "LeastRequestedPriority", "weight": 1}],
  "extenders": [{"urlPrefix": "http://127.0.0.1:$EXT_PORT", "filterVerb": "filter",
                 "prioritizeVerb": "prioritize", "weight": 1, "nodeCacheCapable": true,
                 "httpTimeout": 5000000000}]
}
JSON

PORT_A=$(free_port)
PORT_B=$(free_port)
start_replica() { # PORT LOG
  "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$T/policy.json" \
    --scheduler-name "$SCHED" --leader-elect=true --leader-elect-resource-name "$SCHED" --bind-address 127.0.0.1 --port "$1" --secure-port 0 >> "$2" 2>&1 &
}
# (the polls below go through curl, tests/lib/e2e.sh's api: a kubectl process every half
# second would compete for the CPU with the schedulers under test)
holder() { api_get "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$SCHED" 2>/dev/null | jq -r '.spec.holderIdentity // empty'; }
identity_of() { sed -n 's/.*waiting for the lease .* as \([^ ]*\)$/\1/p' "$1" | tail -1; }
: > "$LOG_A"
: > "$LOG_B"
start_replica "$PORT_A" "$LOG_A"
A_PID=$!
wait_for "replica A becomes ready" 30 curl -sf "http://127.0.0.1:$PORT_A/readyz"
ID_A=$(identity_of "$LOG_A")
a_leads() { [ -n "$ID_A" ] && [ "$(holder)" = "$ID_A" ]; }
wait_for "replica A takes the lease" 30 a_leads
start_replica "$PORT_B" "$LOG_B"
B_PID=$!
wait_for "replica B becomes ready" 30 curl -sf "http://127.0.0.1:$PORT_B/readyz"
ID_B=$(identity_of "$LOG_B")
check "the replicas are different candidates ($ID_A, $ID_B)" test -n "$ID_B" -a "$ID_A" != "$ID_B"
kubectl create namespace "$NS" >/dev/null

# ---- while the burst runs: every 0.5 s, the lease holder and whether A's /healthz answers
# ---- within 2 s ----
probe() {
  while :; do
    h=$(holder)
    if curl -sf -m 2 -o /dev/null "http://127.0.0.1:$PORT_A/healthz"; then s=ok; else s=fail; fi
    echo "$(date +%s.%N) ${h:-none} $s"
    sleep 0.5
  done
}
probe > "$T/probe.log" 2>/dev/null &
PROBE_PID=$!

for i in $(seq 1 "$PODS"); do
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: burst-$i, namespace: $NS, labels: {burst: "yes"}}
spec:
  schedulerName: $SCHED
  containers:
  - {name: app, image: one-binder-app, resources: {requests: {cpu: 10m, memory: 16Mi}}}
---
YAML
done > "$T/burst.yaml"
t0=$(date +%s.%N)
kubectl create -f "$T/burst.yaml" >/dev/null
n_bound() {
  api_get "/api/v1/namespaces/$NS/pods?labelSelector=burst%3Dyes" | jq '[.items[] | select(.spec.nodeName)] | length'
}
all_bound() { local n; n=$(n_bound); [ "$n" = "$PODS" ] || { echo "$n of $PODS bound"; return 1; }; }
wait_for "every pod of the burst ($PODS, extender ${EXT_MS} ms a call) is bound" 300 all_bound
t1=$(date +%s.%N)
echo "# burst bound in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s (load: $(cut -d' ' -f1-3 /proc/loadavg))"

scheduled_events() {
  api_get "/api/v1/namespaces/$NS/events?fieldSelector=reason%3DScheduled" |
    jq -r '.items[] | "\(.involvedObject.name) \(.reportingInstance // "") \(.count // "")"'
}
n_events() { local n; n=$(scheduled_events | grep -c .); [ "$n" -ge "$PODS" ] || { echo "$n Scheduled events"; return 1; }; }
wait_for "a Scheduled event for every pod is written" 60 n_events
sleep 2   # a second binder's late binds and events would show up by now
stop_pid "$PROBE_PID"
PROBE_PID=

scheduled_events > "$T/events"
metric() { curl -sf -m 5 "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
check_eq "no pod has more than one Scheduled event (none bound twice)" "" \
  "$(awk '{ n[$1] += ($3 == "" ? 1 : $3) } END { for (p in n) if (n[p] > 1) print p, n[p] }' "$T/events")"
check_eq "every Scheduled event was reported by the leader, replica A" "$ID_A" \
  "$(awk '{ print $2 }' "$T/events" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "the lease never left replica A during the burst" "$ID_A" \
  "$(awk '{ print $2 }' "$T/probe.log" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "replica A's /healthz answered within 2 s throughout the burst" 0 "$(grep -c ' fail$' "$T/probe.log")"
check_eq "replica A: no bind failed (scheduler_binding_total{result=\"error\"})" 0 \
  "$(metric "$PORT_A" 'scheduler_binding_total{result="error"}')"
check_eq "replica A bound every pod (scheduler_binding_total{result=\"ok\"})" "$PODS" \
  "$(metric "$PORT_A" 'scheduler_binding_total{result="ok"}')"
check_eq "replica B, the standby, bound nothing" "0 0" \
  "$(metric "$PORT_B" 'scheduler_binding_total{result="ok"}') $(metric "$PORT_B" 'scheduler_binding_total{result="error"}')"
check "replica A is still running" alive "$A_PID"
check "replica B is still running" alive "$B_PID"

finish
