#!/usr/bin/env bash
# Hostile inputs the scheduler must take in its stride: an extender that answers every filter
# call with a new failure message for every node it rejects (over 100,000 distinct
# messages in all, one in a hundred 64 KiB long), while pods keep coming. policy-scheduler runs
# elected on its lease with the extender in its policy, on 100 simulated nodes; the extender
# keeps one node per call, so every pod can still be bound. Throughout, /healthz answers
# within 1 s (probed every 0.5 s); pods are bound at no less than half the rate of the same
# scheduler with a quiet extender (measured first); the lease stays with the one replica;
# RSS stays bounded (below ABUSE_MAX_RSS_MIB, 400 MiB by default, 1 GiB for an ASan
# build). Afterwards nodes and pods still load: a new node registers and a pod is bound to
# it.
# Then the operator, with 200 forged Scheduled Events in the cluster (reportingController
# default-scheduler, last observed in 2099 about a real node, or timed now about a node the
# cluster does not have, one carrying 120 KB of annotations): its coexistence guard finds
# no other scheduler, its /healthz answers within 1 s, its RSS stays bounded.
# Runs under tools/with-cluster; BIN_DIR=build/san/bin runs the daemons under ASan+UBSan
# (make abuse-asan), ABUSE_VALGRIND=1 under valgrind (make abuse-valgrind: the checks of
# time, rate and RSS bounds are skipped then); either way each daemon's log must hold no
# report once it is stopped, leaks found at exit included.
. "$(dirname "$0")/../lib/plane-script.sh"
. tests/lib/stack.sh
NS=abuse-inputs
SCHED=abuse-scheduler
N_NODES=100
QUIET_PODS=${ABUSE_QUIET_PODS:-200}
CHATTY_PODS=${ABUSE_CHATTY_PODS:-1020}
# ASan's shadow memory and quarantine multiply a sanitized build's footprint
if ldd "${BIN_DIR:-build/default/bin}/policy-scheduler" 2>/dev/null | grep -q libasan; then
  MAX_RSS_MIB=${ABUSE_MAX_RSS_MIB:-1024} MAX_OP_RSS_MIB=1024
else
  MAX_RSS_MIB=${ABUSE_MAX_RSS_MIB:-400} MAX_OP_RSS_MIB=200
fi
NODES=()
for i in $(seq 0 $((N_NODES - 1))); do NODES+=("ab-$i"); done
NS_PID= NS2_PID= EXT_PID= SCHED_PID= PROBE_PID= INSTALL_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-abuse.log"

reset_operand() {
  kubectl -n openshift-kube-scheduler delete deployment policy-scheduler --ignore-not-found --wait=true
  kubectl -n openshift-kube-scheduler delete configmaps -l app=policy-scheduler --ignore-not-found
  kubectl delete scheduler cluster --ignore-not-found
} >/dev/null 2>&1
cleanup() {
  stop_pid "$INSTALL_PID"
  stop_pid "$PROBE_PID"
  stack_stop_pid operator-abuse
  # one request for the 200 (kubectl deletes one object a request, 5 a second)
  api DELETE "/apis/events.k8s.io/v1/namespaces/default/events?labelSelector=abuse%3Dforged" >/dev/null 2>&1
  reset_operand
  stop_pid "$SCHED_PID"
  stop_pid "$EXT_PID"
  stop_pid "$NS2_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-abuse-late.pid"
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
    kubectl -n kube-system delete lease "$SCHED" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  plane_nodes_cleanup abuse late-0
  rm -rf "$T"
}
trap cleanup EXIT

# The operator's objects install while the nodes register (nothing of the scheduler's part
# uses them); the check of it comes with the operator's part below.
stack_install > "$T/install.out" 2>&1 &
INSTALL_PID=$!
plane_nodes_up abuse "$N_NODES nodes" --counted --seconds 90 --nodes "$N_NODES" --name-prefix ab --cpu 64 --memory 256Gi --pods 500

# ---- the extender: quiet (keeps every node) or chatty (keeps the first node it is sent,
# rejects the others, each with a message never sent before; every 100th one 64 KiB long)
EXT_PORT=$(free_port)
echo quiet > "$T/mode"
cat > "$T/extender.py" <<'PY'
import sys
import extender_http

port, mode_file, count_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sent = 0

def answer(path, args):
    global sent
    names = args.get("NodeNames") or []
    if path != "/filter":
        return None
    if open(mode_file).read().strip() == "chatty" and names:
        failed = {}
        for n in names[1:]:
            sent += 1
            text = "chatty extender says no to %s, message %d" % (n, sent)
            failed[n] = text + (" " + "x" * 65536 if sent % 100 == 0 else "")
        with open(count_file, "w") as f:
            f.write(str(sent))
        return {"nodenames": names[:1], "failedNodes": failed}
    return {"nodenames": names, "failedNodes": {}}

extender_http.serve(port, answer, threaded=True)
PY
echo 0 > "$T/sent"
python3 "$T/extender.py" "$EXT_PORT" "$T/mode" "$T/sent" 2>> "$CLUSTER_DIR/logs/extender-abuse.log" &
EXT_PID=$!
wait_for "the test's extender listens" 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$EXT_PORT"

cat > "$T/policy.json" <<JSON
{
  "kind": "Policy", "apiVersion": "v1",
  "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
  "priorities": [{"name": "LeastRequestedPriority", "weight": 1}],
  "extenders": [{"urlPrefix": "http://127.0.0.1:$EXT_PORT", "filterVerb": "filter",
                 "nodeCacheCapable": true, "httpTimeout": 5000000000}]
}
JSON
PORT=$(free_port)
: > "$LOG"
${DAEMON_WRAP[@]+"${DAEMON_WRAP[@]}"} "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$T/policy.json" \
  --scheduler-name "$SCHED" --leader-elect=true --leader-elect-resource-name "$SCHED" \
  --bind-address 127.0.0.1 --port "$PORT" --secure-port 0 >> "$LOG" 2>&1 &
SCHED_PID=$!
holder() { kubectl -n kube-system get lease "$SCHED" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
identity() { sed -n 's/.*waiting for the lease .* as \([^ ]*\)$/\1/p' "$LOG" | tail -1; }
leads() { [ -n "$(identity)" ] && [ "$(holder)" = "$(identity)" ]; }
wait_for "policy-scheduler takes its lease" 30 leads
ID=$(identity)
rss_mib() { awk '/^VmRSS:/ {print int($2 / 1024)}' "/proc/$SCHED_PID/status"; }

# ---- the probe: /healthz every 0.5 s with a 1 s limit; the worst RSS seen
probe() {
  while alive "$SCHED_PID"; do
    local t
    # curl's own measure: connect to last byte (not the fork of curl on a loaded machine)
    if t=$(curl -sf --max-time 1 -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/healthz"); then
      echo "ok $(awk -v t="$t" 'BEGIN {printf "%d", t * 1000}')" >> "$T/probe"
    else
      echo "fail $(date +%T.%N)" >> "$T/probe"
    fi
    rss_mib >> "$T/rss"
    sleep 0.5
  done
}
probe &
PROBE_PID=$!

# pods NAME-PREFIX COUNT: small pods of the scheduler, created in one List
pods() {
  local i
  for i in $(seq 1 "$2"); do
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s-%d","namespace":"%s"},"spec":{"schedulerName":"%s","terminationGracePeriodSeconds":0,"containers":[{"name":"app","image":"abuse/pause:1","resources":{"requests":{"cpu":"10m","memory":"8Mi"}}}]}}\n' \
      "$1" "$i" "$NS" "$SCHED"
  done | jq -s '{apiVersion: "v1", kind: "List", items: .}' | kubectl apply -f - >/dev/null
}
bound_count() { # PREFIX
  kubectl -n "$NS" get pods -o jsonpath='{range .items[?(@.spec.nodeName)]}{.metadata.name}{"\n"}{end}' |
    grep -c "^$1-" || true
}
all_bound() { # PREFIX COUNT
  local n; n=$(bound_count "$1")
  [ "$n" -eq "$2" ] || { echo "$n of $2 bound"; return 1; }
}
kubectl create namespace "$NS" >/dev/null

# ---- undisturbed: the quiet extender
t0=$(date +%s%N)
pods quiet "$QUIET_PODS"
wait_for "with a quiet extender, $QUIET_PODS pods are bound" 120 all_bound quiet "$QUIET_PODS"
quiet_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
rss_before=$(rss_mib)

# ---- the chatty extender
echo chatty > "$T/mode"
t0=$(date +%s%N)
pods chatty "$CHATTY_PODS"
wait_for "with the chatty extender, $CHATTY_PODS pods are bound" 180 all_bound chatty "$CHATTY_PODS"
chatty_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
sent=$(cat "$T/sent")
check "... the extender sent at least 100,000 distinct failure messages ($sent)" test "$sent" -ge 100000
# rates in pods per second x 1000: chatty >= quiet / 2
quiet_rate=$(( QUIET_PODS * 1000000 / quiet_ms )) chatty_rate=$(( CHATTY_PODS * 1000000 / chatty_ms ))
measured check "... bound at no less than half the undisturbed rate ($((chatty_rate / 1000)) against $((quiet_rate / 1000)) pods/s)" \
  test $((chatty_rate * 2)) -ge "$quiet_rate"
stop_pid "$PROBE_PID"; PROBE_PID=
check "the scheduler is still running" alive "$SCHED_PID"
measured check_eq "/healthz answered every probe within 1 s" "" "$(grep '^fail' "$T/probe")"
check "... and was probed throughout ($(wc -l < "$T/probe") probes, slowest $(sort -k2 -n "$T/probe" | tail -1 | cut -d' ' -f2) ms)" \
  test "$(wc -l < "$T/probe")" -ge 10
max_rss=$(sort -n "$T/rss" | tail -1)
measured check "RSS stayed below $MAX_RSS_MIB MiB (at most $max_rss MiB; $rss_before MiB before the flood)" \
  test "$max_rss" -lt "$MAX_RSS_MIB"
check_eq "the lease stayed with the one replica" "$ID" "$(holder)"
check_eq "... which never lost it" "" "$(grep -i 'lost the leader lease\|stopped leading' "$LOG")"

# ---- afterwards: a new node and a pod still load
echo quiet > "$T/mode"
"$BIN_DIR/nodesim" --nodes 1 --name-prefix late --cpu 4 --memory 8Gi --pods 10 \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/nodesim-late" --pid-file "$CLUSTER_DIR/pids/nodesim-abuse-late.pid" \
  >> "$CLUSTER_DIR/logs/nodesim-abuse.log" 2>&1 &
NS2_PID=$!
wait_for "afterwards a new node registers" 60 kubectl get node late-0
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: late, namespace: $NS}
spec:
  schedulerName: $SCHED
  nodeSelector: {kubernetes.io/hostname: late-0}
  containers: [{name: app, image: abuse/pause:1}]
YAML
late_bound() { [ "$(kubectl -n "$NS" get pod late -o jsonpath='{.spec.nodeName}')" = late-0 ]; }
wait_for "... and a pod that only fits it is bound there" 30 late_bound
stop_pid "$SCHED_PID"; SCHED_PID=
# a sanitized build (BIN_DIR=build/san/bin) reports its leaks as it exits
check_eq "no sanitizer report in the scheduler's log, its exit's leak check included" "" "$(memcheck_reports "$LOG")"

# ---- the operator and forged Scheduled Events
install_rc=0
wait "$INSTALL_PID" || install_rc=$?
check "the operator's CRDs, namespaces and RBAC install" bash -c 'cat "$1"; exit "$2"' - "$T/install.out" "$install_rc"
reset_operand
now=$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)
bulk=$(head -c 120000 /dev/zero | tr '\0' 'x')
jq -n --arg now "$now" --argjson n "$N_NODES" '{apiVersion: "v1", kind: "List", items: [range(1; 201) as $i |
  (if $i % 2 == 0 then {node: ("ab-" + ($i % $n | tostring)), last: "2099-01-01T00:00:00.000000Z"}
   else {node: ("no-such-node-" + ($i | tostring)), last: $now} end) as $f |
  {apiVersion: "events.k8s.io/v1", kind: "Event",
   metadata: {name: ("forged-" + ($i | tostring)), namespace: "default", labels: {abuse: "forged"}},
   eventTime: $now, series: {count: 2, lastObservedTime: $f.last}, reason: "Scheduled", action: "Binding",
   type: "Normal", reportingController: "default-scheduler",
   reportingInstance: ("default-scheduler-forger-" + ($i | tostring)),
   regarding: {kind: "Pod", namespace: "default", name: ("forged-" + ($i | tostring))},
   note: ("Successfully assigned default/forged-" + ($i | tostring) + " to " + $f.node)}]}' > "$T/forged.json"
check "200 forged Scheduled Events are created" kubectl apply -f "$T/forged.json"
check "... one of them with 120 KB of annotations" kubectl -n default annotate events.events.k8s.io forged-1 \
  bulk="$bulk" --overwrite
OPORT=$(stack_operator_start abuse --progress-deadline 120)
OPID=$(cat "$CLUSTER_DIR/pids/operator-abuse.pid")
wait_for "the operator serves /healthz" 30 curl -sf --max-time 1 -o /dev/null "http://127.0.0.1:$OPORT/healthz"
# /healthz every 0.5 s with a 1 s limit and the worst RSS, from its start until it has
# reported on the Scheduler (its guard has read the forged Events by then) and has run one
# more whole pass, and for no less than 10 probes
: > "$T/oprobe"
oprobe() {
  local t
  while :; do
    if t=$(curl -sf --max-time 1 -o /dev/null -w '%{time_total}' "http://127.0.0.1:$OPORT/healthz"); then
      echo "ok $t" >> "$T/oprobe"
    else
      echo "fail $(date +%T.%N)" >> "$T/oprobe"
    fi
    awk '/^VmRSS:/ {print int($2 / 1024)}' "/proc/$OPID/status" >> "$T/orss"
    sleep 0.5
  done
}
oprobe &
PROBE_PID=$!
sched_cond() { kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"$1\")].$2}" 2>/dev/null; }
has_status() { [ -n "$(sched_cond Degraded status)" ]; }
wait_for "the operator reports on the Scheduler" 60 has_status
check "... and has run a whole pass since" stack_operator_has_run_since_now abuse
probed() { [ "$(wc -l < "$T/oprobe")" -ge 10 ]; }
setup_wait "ten probes of the operator are in" 30 probed
stop_pid "$PROBE_PID"; PROBE_PID=
check "the operator is running" alive "$OPID"
measured check_eq "its /healthz answered every probe within 1 s" "" "$(grep -v '^ok' "$T/oprobe")"
check "... probed throughout ($(wc -l < "$T/oprobe") probes, slowest $(sort -k2 -n "$T/oprobe" | tail -1 | cut -d' ' -f2) s)" \
  test "$(wc -l < "$T/oprobe")" -ge 10
check_eq "... its guard found no other scheduler: Degraded is not ConflictingScheduler" "" \
  "$(sched_cond Degraded reason | grep ConflictingScheduler)"
check_eq "... and its log never says another scheduler is active" "0" \
  "$(grep -c 'Another default-scheduler is active' "$CLUSTER_DIR/logs/operator-abuse.log")"
max_orss=$(sort -n "$T/orss" | tail -1)
measured check "... its RSS stayed below $MAX_OP_RSS_MIB MiB (at most $max_orss MiB)" test "$max_orss" -lt "$MAX_OP_RSS_MIB"
stack_stop_pid operator-abuse
check_eq "no sanitizer report in the operator's log, its exit's leak check included" "" \
  "$(memcheck_reports "$CLUSTER_DIR/logs/operator-abuse.log")"
finish
