#!/usr/bin/env bash
# policy-scheduler is a drop-in for kubeadm's kube-scheduler: the static-pod manifest kubeadm
# v1.20 writes (tests/data/kubeadm/kube-scheduler.yaml, image and command name changed) is
# run as it stands, its command taken from the manifest and only the kubeconfig path made
# local (the plane's scheduler.kubeconfig is what kubeadm's scheduler.conf is: a client
# certificate for system:kube-scheduler). Then: kubeadm's probes (anonymous HTTPS GET
# https://127.0.0.1:10259/healthz) answer; /livez and /readyz too; /metrics needs a token
# whose user may get /metrics (401 without one, 403 without the RBAC, 200 with it); no
# insecure port (--port=0); it holds the kube-system/kube-scheduler Lease; pods of the
# default scheduler are scheduled onto the simulated nodes.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
. "$ROOT/tests/lib/sa-token.sh"
. "$CLUSTER_DIR/env"
MANIFEST=tests/data/kubeadm/kube-scheduler.yaml
NS=kubeadm-drop-in
NODES=(kd-0 kd-1)
NS_PID=
SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-kubeadm.log"
LOG_CM="$CLUSTER_DIR/logs/policy-scheduler-kubeadm-configmap.log"

cleanup_api() {
  kubectl delete namespace "$NS" --ignore-not-found --wait=false
  kubectl delete clusterrolebinding kubeadm-drop-in-metrics --ignore-not-found
  kubectl delete clusterrole kubeadm-drop-in-metrics --ignore-not-found
  kubectl -n kube-system delete lease kube-scheduler --ignore-not-found
  kubectl -n kube-system delete configmap kubeadm-drop-in-policy kubeadm-drop-in-nokey --ignore-not-found
  kubectl delete node "${NODES[@]}" --ignore-not-found --wait=false
  kubectl delete lease -n kube-node-lease "${NODES[@]}" --ignore-not-found --wait=false
} >/dev/null 2>&1
cleanup() {
  stop_pid "$SCHED_PID"
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-kubeadm.pid"
  cleanup_api
  rm -rf "$T"
}
trap cleanup EXIT
cleanup_api

# The manifest's command, kube-scheduler's name swapped for the binary, scheduler.conf local.
mapfile -t CMD < <(python3 - "$MANIFEST" "$BIN_DIR/policy-scheduler" "$CLUSTER_DIR/scheduler.kubeconfig" <<'PY'
import sys, yaml
pod = yaml.safe_load(open(sys.argv[1]))
c = pod["spec"]["containers"][0]
assert c["command"][0] == "policy-scheduler", c["command"][0]
print(sys.argv[2])
for a in c["command"][1:]:
    print(a.replace("/etc/kubernetes/scheduler.conf", sys.argv[3]))
PY
)
check_eq "the manifest's command is kubeadm v1.20's, the binary's name aside" \
  "--authentication-kubeconfig=K --authorization-kubeconfig=K --bind-address=127.0.0.1 --kubeconfig=K --leader-elect=true --port=0" \
  "$(printf '%s ' "${CMD[@]:1}" | sed "s|$CLUSTER_DIR/scheduler.kubeconfig|K|g; s/ $//")"
PROBE=$(python3 -c 'import sys,yaml; p=yaml.safe_load(open(sys.argv[1]))["spec"]["containers"][0]["livenessProbe"]["httpGet"]; print("%s://%s:%d%s" % (p["scheme"].lower(), p["host"], p["port"], p["path"]))' "$MANIFEST")
check_eq "kubeadm's liveness probe" "https://127.0.0.1:10259/healthz" "$PROBE"

plane_nodes_up kubeadm "two nodes" --not-alone --nodes 2 --name-prefix kd
setup_wait "no other script's nodes are left on the plane" 120 only_nodes "${NODES[@]}"

# 10259 is the port kubeadm's probes use: another scheduler on this host may hold it briefly
port_free() { ! (exec 3<>/dev/tcp/127.0.0.1/10259) 2>/dev/null; }
setup_wait "127.0.0.1:10259 is free" 60 port_free

"${CMD[@]}" >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "kubeadm's probe: anonymous HTTPS GET $PROBE answers ok" 30 \
  bash -c "[ \"\$(curl -sk '$PROBE')\" = ok ]"
check_eq "/livez is open as well" "ok" "$(curl -sk https://127.0.0.1:10259/livez)"
wait_for "/readyz once the caches have synced" 30 bash -c '[ "$(curl -sk https://127.0.0.1:10259/readyz)" = ok ]'
check_match "the serving certificate is self-signed for localhost" "CN ?= ?localhost" \
  "$(openssl s_client -connect 127.0.0.1:10259 </dev/null 2>/dev/null | openssl x509 -noout -subject 2>&1)"
check_eq "/metrics without a token: 401" "401" "$(curl -sk -o /dev/null -w '%{http_code}' https://127.0.0.1:10259/metrics)"

kubectl create namespace "$NS" >/dev/null
kubectl -n "$NS" create serviceaccount scraper >/dev/null
TOKEN=$(sa_token "$NS" scraper)
code() { curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" https://127.0.0.1:10259/metrics; }
check_eq "/metrics with a token whose user may not get /metrics: 403" "403" "$(code)"
kubectl create clusterrole kubeadm-drop-in-metrics --verb=get --non-resource-url=/metrics >/dev/null
kubectl create clusterrolebinding kubeadm-drop-in-metrics --clusterrole=kubeadm-drop-in-metrics \
  --serviceaccount="$NS:scraper" >/dev/null
# a denial is cached for 10 s (--authorization-webhook-cache-unauthorized-ttl's default)
wait_for "/metrics with a token bound to get /metrics: 200" 30 bash -c "[ \"\$(curl -sk -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $TOKEN' https://127.0.0.1:10259/metrics)\" = 200 ]"
check_match "the metrics are the scheduler's" "scheduler_schedule_attempts_total" \
  "$(curl -sk -H "Authorization: Bearer $TOKEN" https://127.0.0.1:10259/metrics)"
check_eq "--port=0: 10259 is its only listening port" "127.0.0.1:10259" \
  "$(ss -Hltnp | grep "pid=$SCHED_PID," | awk '{print $4}' | sort -u | tr '\n' ' ' | sed 's/ $//')"

wait_for "it holds the kube-system/kube-scheduler Lease" 30 bash -c \
  "kubectl -n kube-system get lease kube-scheduler -o jsonpath='{.spec.holderIdentity}' | grep -q _"

kubectl -n "$NS" create deployment web --image=k8s.gcr.io/pause:3.2 --replicas=4 >/dev/null
kubectl -n "$NS" set resources deployment web --requests=cpu=100m,memory=64Mi >/dev/null
bound() {
  local nodes
  nodes=$(kubectl -n "$NS" get pods -l app=web -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}')
  [ "$(grep -c '^kd-' <<< "$nodes")" -ge 4 ] || { echo "bound: $nodes"; return 1; }
}
wait_for "four pods of the default scheduler are bound to the simulated nodes" 60 bound
scheduled_by() {
  local n
  n=$(kubectl -n "$NS" get events.v1.events.k8s.io \
    -o jsonpath='{range .items[*]}{.reason} {.reportingController}{"\n"}{end}' | grep -c '^Scheduled default-scheduler$')
  [ "$n" -ge 4 ] || { echo "$n Scheduled events by default-scheduler"; return 1; }
}
wait_for "four Scheduled events, reported by default-scheduler" 30 scheduled_by
check "the scheduler is still running" alive "$SCHED_PID"
check_match "system:kube-scheduler may not list namespaces: said once, and scheduling goes on" \
  "namespaces cannot be listed: openshift.io/node-selector annotations are not applied" "$(cat "$LOG")"
check "no error was logged" bash -c "! grep -E '^E[0-9]{4} ' '$LOG'"

# The usual addition to kubeadm's command: --policy-configmap, read as kube-scheduler v1.20
# reads it (the Policy under the policy.cfg key, at start). v1.20's system:kube-scheduler
# role may not read ConfigMaps in kube-system, so the client is the plane's admin here.
stop_pid "$SCHED_PID"; SCHED_PID=
kubectl -n kube-system create configmap kubeadm-drop-in-policy --from-literal=policy.cfg='{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsResources"},{"name":"PodToleratesNodeTaints"}],"priorities":[{"name":"MostRequestedPriority","weight":1}]}' >/dev/null
kubectl -n kube-system create configmap kubeadm-drop-in-nokey --from-literal=policy.json='{}' >/dev/null
"${CMD[@]/--kubeconfig=*/--kubeconfig=$KUBECONFIG}" --policy-configmap=kubeadm-drop-in-policy --policy-configmap-namespace=kube-system \
  >> "$LOG_CM" 2>&1 &
SCHED_PID=$!
wait_for "--policy-configmap: the Policy of its policy.cfg key is the one run" 30 \
  grep -q "fit predicates 'map\[CheckNodeUnschedulable:{} PodFitsResources:{} PodToleratesNodeTaints:{}\]' and priority functions 'map\[MostRequestedPriority:{}\]'" "$LOG_CM"
stop_pid "$SCHED_PID"; SCHED_PID=
out=$(timeout 20 "${CMD[@]/--kubeconfig=*/--kubeconfig=$KUBECONFIG}" --policy-configmap=kubeadm-drop-in-nokey 2>&1); rc=$?
check_eq "a ConfigMap without policy.cfg: exit 1" "1" "$rc"
check_match "... saying so" "configmap kube-system/kubeadm-drop-in-nokey has no key policy.cfg" "$out"

finish
