#!/usr/bin/env bash
# /metrics/resources, differential: kube-scheduler v1.20.2 and policy-scheduler (a Policy, the
# v1.20 line) watch the same API server and serve the same text for the same pods: a pending
# pod with init containers, extended, hugepages and ephemeral-storage requests and a
# RuntimeClass's overhead, a bound pod with a priority, a bound pod that has Succeeded (counted
# by neither); a pod deleted is gone from the next scrape. Then the v1 line (1.32's [STABLE]
# families): the leader serves them, a follower an empty body, as 1.32 does; the secure port
# asks who scrapes (401 without a token). 1.32's sidecar arithmetic is a unit case
# (test-sched-pod-resources): this plane's v1.20 API server drops an init container's
# restartPolicy.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir)
UP_PID= OURS_PID= LEAD_PID= FOLLOW_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-metrics-resources.log"
cleanup() {
  stop_pid "$UP_PID"; stop_pid "$OURS_PID"; stop_pid "$LEAD_PID"; stop_pid "$FOLLOW_PID"
  kubectl delete namespace mres --wait=false >/dev/null 2>&1
  kubectl delete runtimeclass mres-kata >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

setup "namespace mres" kubectl create namespace mres
setup "the pods and a RuntimeClass with overhead" kubectl apply -f - <<'YAML'
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: mres-kata}
handler: kata
overhead: {podFixed: {cpu: 100m, memory: 10Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: mres}
spec:
  schedulerName: nobody
  runtimeClassName: mres-kata
  initContainers:
  - {name: i, image: x, resources: {requests: {cpu: "2", memory: 1Gi}, limits: {cpu: "3"}}}
  containers:
  - name: a
    image: x
    resources:
      requests: {cpu: 500m, memory: 100Mi, ephemeral-storage: 1Gi, example.com/gpu: "1", hugepages-2Mi: 4Mi}
      limits: {memory: 200Mi, example.com/gpu: "1", hugepages-2Mi: 4Mi}
  - {name: b, image: x, resources: {requests: {cpu: 250m}}}
---
apiVersion: v1
kind: Pod
metadata: {name: bound, namespace: mres}
spec:
  nodeName: ghost-node
  priorityClassName: system-cluster-critical
  containers:
  - {name: a, image: x, resources: {requests: {cpu: 1500m, memory: "1e3"}, limits: {cpu: "2"}}}
---
apiVersion: v1
kind: Pod
metadata: {name: ended, namespace: mres}
spec:
  nodeName: ghost-node
  containers:
  - {name: a, image: x, resources: {requests: {cpu: "1"}}}
YAML
# kubectl v1.20 patches no status subresource: the pod's status is replaced through --raw
ended() {
  kubectl -n mres get pod ended -o json |
    python3 -c 'import json,sys; p=json.load(sys.stdin); p["status"]["phase"]="Succeeded"; print(json.dumps(p))' > "$T/ended.json" &&
    kubectl replace --raw /api/v1/namespaces/mres/pods/ended/status -f "$T/ended.json" >/dev/null
}
setup "pod ended has Succeeded" ended

scrape() { # PORT [PATH]
  curl -sf "http://127.0.0.1:$1${2:-/metrics/resources}"
}
# only this script's pods (the plane may hold others')
ours() { grep -E '^#|namespace="mres"'; }

UP_PORT=$(free_port) OURS_PORT=$(free_port)
"$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" --leader-elect=false --scheduler-name mres-upstream \
  --port "$UP_PORT" --address 127.0.0.1 --secure-port 0 >> "$CLUSTER_DIR/logs/kube-scheduler-metrics-resources.log" 2>&1 &
UP_PID=$!
cat > "$T/policy.json" <<'JSON'
{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsResources"}],"priorities":[{"name":"LeastRequestedPriority","weight":1}]}
JSON
"$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$T/policy.json" --leader-elect=false \
  --scheduler-name mres-ours --port "$OURS_PORT" --address 127.0.0.1 --secure-port 0 >> "$LOG" 2>&1 &
OURS_PID=$!
wait_for "both serve /metrics/resources with pod pending" 30 \
  bash -c "curl -sf http://127.0.0.1:$UP_PORT/metrics/resources | grep -q 'pod=\"pending\"' &&
           curl -sf http://127.0.0.1:$OURS_PORT/metrics/resources | grep -q 'pod=\"pending\"'"
up=$(scrape "$UP_PORT" | ours) mine=$(scrape "$OURS_PORT" | ours)
check_eq "(v1.20) the same text as kube-scheduler v1.20.2 for the same pods" "$up" "$mine"
check_match "(v1.20) ... the overhead on the init container's cpu limit (3 + 0.1)" \
  'kube_pod_resource_limit\{namespace="mres",node="",pod="pending",priority="0",resource="cpu",scheduler="nobody",unit="cores"\} 3.1' "$mine"
check_match "(v1.20) ... the bound pod with its priority class's priority" \
  'kube_pod_resource_request\{namespace="mres",node="ghost-node",pod="bound",priority="2000000000",resource="cpu"' "$mine"
check "(v1.20) ... and not the pod that ended" bash -c "! grep -q 'pod=\"ended\"' <<< \"\$1\"" _ "$mine"
setup "pod bound deleted (no kubelet confirms: at once)" kubectl -n mres delete pod bound --grace-period=0 --force
wait_for "(v1.20) a deleted pod is gone from the next scrape" 20 \
  bash -c "! curl -sf http://127.0.0.1:$OURS_PORT/metrics/resources | grep -q 'pod=\"bound\"'"
stop_pid "$OURS_PID"; OURS_PID=
stop_pid "$UP_PID"; UP_PID=

# ---- the v1 line: 1.32's families, the leader only, the secure port asks who scrapes ----
lease_v1() { # SCHEDULER-NAME: a v1 file electing on one Lease
  cat <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: $KUBECONFIG}
leaderElection: {leaderElect: true, resourceNamespace: mres, resourceName: mres-lock, leaseDuration: 6s, renewDeadline: 4s, retryPeriod: 1s}
profiles:
- schedulerName: $1
YAML
}
lease_v1 mres-v1 > "$T/v1.yaml"
LEAD_PORT=$(free_port) FOLLOW_PORT=$(free_port) SPORT=$(free_port)
"$BIN_DIR/policy-scheduler" --config "$T/v1.yaml" --port "$LEAD_PORT" --address 127.0.0.1 \
  --bind-address 127.0.0.1 --secure-port "$SPORT" >> "$LOG" 2>&1 &
LEAD_PID=$!
wait_for "the first v1 scheduler leads" 30 bash -c "curl -sf http://127.0.0.1:$LEAD_PORT/metrics | grep -q '^leader_election_master_status{name=\"mres-lock\"} 1'"
"$BIN_DIR/policy-scheduler" --config "$T/v1.yaml" --port "$FOLLOW_PORT" --address 127.0.0.1 --secure-port 0 >> "$LOG" 2>&1 &
FOLLOW_PID=$!
wait_for "the second serves, following" 30 curl -sf "http://127.0.0.1:$FOLLOW_PORT/healthz"
lead=$(scrape "$LEAD_PORT" | ours)
check_match "(1.32) the leader's families are [STABLE]" '# HELP kube_pod_resource_request \[STABLE\]' "$lead"
check_match "(1.32) ... with the pending pod's requests" \
  'kube_pod_resource_request\{namespace="mres",node="",pod="pending",priority="0",resource="cpu",scheduler="nobody",unit="cores"\} 2.1' "$lead"
check_eq "(1.32) a follower answers with an empty body" "" "$(scrape "$FOLLOW_PORT")"
code=$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$SPORT/metrics/resources")
check_eq "(secure) without a token the secure port answers 401, as for /metrics" 401 "$code"
finish
