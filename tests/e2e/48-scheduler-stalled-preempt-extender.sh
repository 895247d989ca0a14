#!/usr/bin/env bash
# An extender that is slow to answer its preemptVerb does not stall the scheduler's loop.
# policy-scheduler leads on a 4 s lease (renew deadline 3 s), with one extender that has a
# preemptVerb (nodeCacheCapable, httpTimeout 8 s, not ignorable), on three 2-cpu nodes:
# sx-0 and sx-1 each hold two 900m low-priority pods, sx-2 is empty. A high-priority 1500m
# pod that may only go to sx-0 or sx-1 needs a preemption, and the extender keeps sx-1 only.
#   (a) the extender answers after 5 s: while it thinks, /healthz answers within 1 s every
#       time it is asked, the lease stays with the scheduler (a 5 s stall of the loop would
#       lose it, and the scheduler exits as kube-scheduler does); a pod that needs no
#       preemption, created meanwhile, is bound once the decision in progress ends
#       (decisions are taken one at a time, as upstream's scheduling cycle takes them); the
#       preemption completes with the extender's choice: nominated to sx-1, sx-1's pods
#       deleted, sx-0's untouched, the pod bound;
#   (b) the extender never answers within its httpTimeout: the same promises while it
#       stalls; then, as v1.20.2 does when a non-ignorable extender's ProcessPreemption
#       fails (PostFilter returns the error, recordSchedulingFailure with no nomination),
#       nothing is preempted, nothing nominated, the pod is Unschedulable with a
#       FailedScheduling event, and the log names the extender's timeout.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/plane.sh"
plane_script
NS=stalled-xp
SCHED=stalled-xp-scheduler
NODES=(sx-0 sx-1 sx-2)
NS_PID=
SCHED_PID=
EXT_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-stalled-preempt-extender.log"
STALL=5

cleanup() {
  stop_pid "$SCHED_PID"
  stop_pid "$EXT_PID"
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
    kubectl delete priorityclass stalled-xp-low stalled-xp-high --ignore-not-found
    kubectl -n kube-system delete lease "$SCHED" --ignore-not-found
  } >/dev/null 2>&1
  plane_nodes_cleanup stalled-xp
  rm -rf "$T"
}
trap cleanup EXIT

plane_nodes_up stalled-xp "three 2-cpu nodes" --nodes 3 --name-prefix sx --cpu 2 --memory 8Gi

# ---- the extender: its preemptVerb answers after $(cat mode) seconds, keeping sx-1 only
EXT_PORT=$(free_port)
cat > "$T/extender.py" <<'PY'
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, mode, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        args = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        m = args.get("NodeNameToMetaVictims") or {}
        with open(log, "a") as f:
            f.write("%.3f asked %s %s\n" % (time.time(), self.path, ",".join(sorted(m))))
        with open(mode) as f:
            delay = float(f.read().strip() or "0")
        time.sleep(delay)
        body = json.dumps({"nodeNameToMetaVictims": {k: v for k, v in m.items() if k == "sx-1"}}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass            # the scheduler gave up on this call
        with open(log, "a") as f:
            f.write("%.3f answered %s\n" % (time.time(), self.path))

    def log_message(self, *a):
        pass

ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
PY
echo "$STALL" > "$T/mode"
: > "$T/extender.log"
plane_extender_start stalled-xp "$T/extender.py" "$T/mode" "$T/extender.log"

kubectl apply -f - >/dev/null <<YAML
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: stalled-xp-low}
value: 10
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: stalled-xp-high}
value: 1000
YAML
kubectl create namespace "$NS" >/dev/null
# pod NAME CLASS CPU [NODE|hosts=A,B]: bound by name with NODE, else scheduled by $SCHED
# (only to hosts A, B with hosts=)
pod() {
  local where=${4:-} spec
  case $where in
    hosts=*) spec="\"schedulerName\":\"$SCHED\",\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":$(jq -cn --arg h "${where#hosts=}" '$h | split(",")')}]}]}}}," ;;
    "") spec="\"schedulerName\":\"$SCHED\"," ;;
    *) spec="\"nodeName\":\"$where\"," ;;
  esac
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s"},"spec":{%s"priorityClassName":"%s","terminationGracePeriodSeconds":0,"containers":[{"name":"app","image":"stalled-xp/pause:1","resources":{"requests":{"cpu":"%s","memory":"16Mi"}}}]}}\n' \
    "$1" "$NS" "$spec" "$2" "$3"
}
{ for n in sx-0 sx-1; do pod "low-$n-a" stalled-xp-low 900m "$n"; pod "low-$n-b" stalled-xp-low 900m "$n"; done; } |
  jq -s '{apiVersion: "v1", kind: "List", items: .}' | kubectl apply -f - >/dev/null
running() {
  local n
  n=$(kubectl -n "$NS" get pods --field-selector status.phase=Running --no-headers 2>/dev/null | wc -l)
  [ "$n" -eq 4 ] || { echo "$n of 4 Running"; return 1; }
}
setup_wait "four low-priority pods run, two on sx-0 and two on sx-1" 60 running

cat > "$T/policy.json" <<JSON
{
  "kind": "Policy", "apiVersion": "v1",
  "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
  "priorities": [{"name": "LeastRequestedPriority", "weight": 1}],
  "extenders": [{"urlPrefix": "http://127.0.0.1:$EXT_PORT", "preemptVerb": "preempt",
                 "nodeCacheCapable": true, "weight": 1, "httpTimeout": 8000000000}]
}
JSON
PORT=$(free_port)
: > "$LOG"
"$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$T/policy.json" \
  --scheduler-name "$SCHED" --leader-elect=true --leader-elect-resource-name "$SCHED" \
  --leader-elect-lease-duration=4s --leader-elect-renew-deadline=3s --leader-elect-retry-period=1s \
  --bind-address 127.0.0.1 --port "$PORT" --secure-port 0 -v 2 >> "$LOG" 2>&1 &
SCHED_PID=$!
holder() { kubectl -n kube-system get lease "$SCHED" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
identity() { sed -n 's/.*waiting for the lease .* as \([^ ]*\)$/\1/p' "$LOG" | tail -1; }
leads() { [ -n "$(identity)" ] && [ "$(holder)" = "$(identity)" ]; }
setup_wait "policy-scheduler takes its 4 s lease" 30 leads
setup_wait "policy-scheduler becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"
ME=$(identity)
transitions() { kubectl -n kube-system get lease "$SCHED" -o jsonpath='{.spec.leaseTransitions}' 2>/dev/null; }
TRANSITIONS=$(transitions)

asked() { [ "$(grep -c " asked " "$T/extender.log")" -ge "$1" ]; }
answered() { [ "$(grep -c " answered " "$T/extender.log")" -ge "$1" ]; }
# probe_while SECONDS OUT: /healthz every 0.25 s for SECONDS, one line per probe: its HTTP
# code and time (a probe that does not answer within 1 s shows 000), then the lease holder
probe_while() {
  local until=$(( $(date +%s%N) + $1 * 1000000000 ))
  : > "$2"
  while [ "$(date +%s%N)" -lt $until ]; do
    curl -s -o /dev/null -m 1 -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$PORT/healthz" >> "$2"
    sleep 0.25
  done
  echo "holder $(holder)" >> "$2"
}
slow_probes() { awk '$1 != "holder" && ($1 != 200 || $2 >= 1.0)' "$1"; }
# the probes' count and slowest time, for the record
probe_summary() { awk '$1 != "holder" { n++; if ($2 > max) max = $2 } END { printf "%d probes, slowest %.3f s", n, max }' "$1"; }
sched_alive() { alive "$SCHED_PID"; }
victims_left() { kubectl -n "$NS" get pods -o json | jq -r '[.items[] | select(.metadata.name | startswith("low-")) | select(.metadata.deletionTimestamp == null) | .metadata.name] | sort | join(",")'; }

# ---- (a) the extender answers after 5 s
pod high-a stalled-xp-high 1500m hosts=sx-0,sx-1 | kubectl apply -f - >/dev/null
setup_wait "the preemptor is sent to the extender" 30 asked 1
pod free-a stalled-xp-low 100m | kubectl apply -f - >/dev/null
probe_while 4 "$T/probes-a"
check_eq "(a) while the extender thinks, /healthz answers within 1 s every time ($(probe_summary "$T/probes-a"))" "" \
  "$(slow_probes "$T/probes-a")"
check_eq "(a) ... and the lease stays with the scheduler, which never finds it lapsed" "holder $ME" \
  "$(tail -1 "$T/probes-a")$(grep -o 'lost the leader lease' "$LOG")"
check "(a) ... which is still running" sched_alive
wait_for "(a) the extender answers" 20 answered 1
nominated_a() { [ "$(kubectl -n "$NS" get pod high-a -o jsonpath='{.status.nominatedNodeName}')" = sx-1 ]; }
wait_for "(a) then the preemptor is nominated to the node the extender kept (sx-1)" 20 nominated_a
sx1_gone() { [ "$(victims_left)" = "low-sx-0-a,low-sx-0-b" ]; }
wait_for "(a) sx-1's two pods are its victims; sx-0's stay" 30 sx1_gone
wait_for "(a) the pod that needs no preemption is bound" 20 pod_bound "$NS" free-a
wait_for "(a) the preemptor is bound to sx-1" 60 pod_bound "$NS" high-a
check_eq "(a) ... on sx-1" "sx-1" "$(pod_node "$NS" high-a)"
check_eq "(a) the extender was asked once, with both candidates" "sx-0,sx-1" \
  "$(awk '$2 == "asked" { print $4 }' "$T/extender.log" | paste -sd' ')"

# ---- (b) the extender never answers within its 8 s httpTimeout
echo 30 > "$T/mode"
mark=$(wc -l < "$LOG")
pod high-b stalled-xp-high 1500m hosts=sx-0,sx-1 | kubectl apply -f - >/dev/null
setup_wait "the second preemptor is sent to the extender" 30 asked 2
pod free-b stalled-xp-low 100m | kubectl apply -f - >/dev/null
probe_while 6 "$T/probes-b"
check_eq "(b) while the extender stalls, /healthz answers within 1 s every time ($(probe_summary "$T/probes-b"))" "" \
  "$(slow_probes "$T/probes-b")"
check_eq "(b) ... and the lease stays with the scheduler, which never finds it lapsed" "holder $ME" \
  "$(tail -1 "$T/probes-b")$(grep -o 'lost the leader lease' "$LOG")"
check "(b) ... which is still running" sched_alive
timed_out() { tail -n +"$((mark + 1))" "$LOG" | grep -q "$NS/high-b: preemption failed"; }
wait_for "(b) after the extender's httpTimeout the preemption fails" 20 timed_out
check_match "(b) ... the log names the extender's timeout" "high-b: preemption failed: extender http://127.0.0.1:$EXT_PORT/preempt: .*[Tt]ime" \
  "$(tail -n +"$((mark + 1))" "$LOG" | grep "high-b: preemption failed")"
wait_for "(b) the pod that needs no preemption is bound" 20 pod_bound "$NS" free-b
unschedulable_b() {
  [ "$(kubectl -n "$NS" get pod high-b -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')" = Unschedulable ]
}
wait_for "(b) the preemptor is reported Unschedulable" 20 unschedulable_b
failed_event_b() {
  kubectl -n "$NS" get events --field-selector reason=FailedScheduling,involvedObject.name=high-b -o name | grep -q .
}
wait_for "(b) ... with a FailedScheduling event" 20 failed_event_b
check_eq "(b) it is nominated nowhere (upstream: no nomination when PostFilter fails)" "" \
  "$(kubectl -n "$NS" get pod high-b -o jsonpath='{.status.nominatedNodeName}')"
check_eq "(b) nothing more was preempted" "low-sx-0-a,low-sx-0-b" "$(victims_left)"
check_eq "(b) the lease never changed hands" "$ME $TRANSITIONS" "$(holder) $(transitions)"
check "(b) the scheduler is still running" sched_alive

finish
