#!/usr/bin/env bash
# nodesim against the real local control plane: three simulated nodes become Ready; a
# Deployment whose image is mapped to a local program (testapp) becomes Available with the
# program really running, its readiness probe answered and its ConfigMap and
# service-account volumes mounted; `kubectl logs` (plain, --tail, --limit-bytes, -f) goes
# through kube-apiserver to nodesim's kubelet endpoint; a rollout to a new template stops
# the old process and starts a new one; --readiness-retry-ms retries a starting container's
# failed readiness probe before its period is over; `kubectl delete pod` returns promptly; a pod bound
# through the pods/binding subresource runs too; nodesim's SIGTERM leaves no process behind.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
. "$ROOT/tests/lib/proc.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
BIN_DIR=${BIN_DIR:-build/default/bin}
BIN_DIR=$(cd "$BIN_DIR" 2>/dev/null && pwd) || bail_out "binaries missing in ${BIN_DIR} (make all)"
: "${CLUSTER_DIR:?run under tools/with-cluster}"
T=$(mktemp -d)
NS_PID=
# Later scripts share this plane: nothing of this one may stay behind, least of all Ready
# nodes that no simulator serves any more (the node lifecycle controller is off).
cleanup_api() {
  kubectl delete deployment testapp --ignore-not-found --wait=false
  kubectl delete pod -l app=testapp --ignore-not-found --grace-period=0 --force
  kubectl delete pod bound slowready incluster1 incluster2 crasher unhealthy stubborn --ignore-not-found --grace-period=0 --force
  kubectl delete configmap testapp-config --ignore-not-found
  kubectl delete rolebinding nodesim-view --ignore-not-found
  kubectl delete node smoke-0 smoke-1 smoke-2 --ignore-not-found --wait=false
  kubectl delete lease -n kube-node-lease smoke-0 smoke-1 smoke-2 --ignore-not-found --wait=false
} >/dev/null 2>&1
cleanup() {
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim.pid"
  cleanup_api
  rm -rf "$T"
}
trap cleanup EXIT
NS_LOG="$CLUSTER_DIR/logs/nodesim.log"

"$BIN_DIR/nodesim" --nodes 3 --name-prefix smoke --zones 2 --label tier=sim \
  --run "testapp=$BIN_DIR/testapp" --run "kubectl=$(command -v kubectl)" \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/state" --pid-file "$CLUSTER_DIR/pids/nodesim.pid" --readiness-retry-ms 200 -v 1 >> "$NS_LOG" 2>&1 &
NS_PID=$!

nodes_ready() {
  local out
  out=$(kubectl get nodes smoke-0 smoke-1 smoke-2 \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}') || return 1
  [ "$(grep -c '^True$' <<< "$out")" = 3 ]
}
wait_for "nodesim registers three nodes that are Ready" 30 nodes_ready
check_match "kubectl get nodes shows them Ready with v1.20.2" \
  'smoke-0 +Ready .*v1\.20\.2' "$(kubectl get nodes --no-headers | tr -s ' ')"
check_eq "labels: zone round-robin, extra label, hostname" "zone-1 sim smoke-1" \
  "$(kubectl get node smoke-1 -o jsonpath='{.metadata.labels.topology\.kubernetes\.io/zone} {.metadata.labels.tier} {.metadata.labels.kubernetes\.io/hostname}')"
check_eq "each node has a Lease in kube-node-lease" "smoke-0 smoke-1 smoke-2" \
  "$(kubectl get lease -n kube-node-lease -o jsonpath='{.items[*].metadata.name}' | tr ' ' '\n' | grep '^smoke-' | sort | xargs)"
check_match "the kubelet endpoint is advertised" '^[1-9][0-9]*$' \
  "$(kubectl get node smoke-0 -o jsonpath='{.status.daemonEndpoints.kubeletEndpoint.Port}')"

kubectl create configmap testapp-config --from-literal=greeting=hello-from-configmap >/dev/null
deployment() { # ARG
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: testapp, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: testapp}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}
  template:
    metadata: {labels: {app: testapp}}
    spec:
      nodeName: smoke-1
      terminationGracePeriodSeconds: 10
      containers:
      - name: app
        image: testapp:v1
        args: ["--bind", "\$(POD_IP)", "--show", "/etc/testapp/greeting",
               "--show", "/var/run/secrets/kubernetes.io/serviceaccount/namespace", "$1"]
        env:
        - name: POD_IP
          valueFrom: {fieldRef: {fieldPath: status.podIP}}
        volumeMounts:
        - {name: config, mountPath: /etc/testapp}
        readinessProbe:
          httpGet: {path: /readyz, port: 8080}
          periodSeconds: 1
      volumes:
      - name: config
        configMap: {name: testapp-config}
YAML
}
setup "a Deployment of the mapped image is created" kubectl apply -f <(deployment first)
wait_for "the Deployment becomes Available" 60 \
  kubectl wait --for=condition=Available --timeout=1s deployment/testapp

# The one pod of a given template hash (or the only one), ignoring terminating ones.
pod_of() { # ARG-IN-LOGS
  local p
  for p in $(kubectl get pods -l app=testapp -o jsonpath='{range .items[?(@.status.phase=="Running")]}{.metadata.name}{" "}{end}'); do
    [ -z "$(kubectl get pod "$p" -o jsonpath='{.metadata.deletionTimestamp}')" ] || continue
    kubectl logs --request-timeout=10s "$p" 2>/dev/null | grep -q "message=$1$" && { echo "$p"; return 0; }
  done
  return 1
}
get_pod() { pod_of "$1" > "$T/pod-$1"; }
wait_for "the pod runs the program (its log has the argument)" 20 get_pod first
POD1=$(cat "$T/pod-first")
STATUS=$(kubectl get pod "$POD1" -o jsonpath='{.status.phase} {.status.hostIP} {.status.podIP} {.status.containerStatuses[0].ready} {.status.containerStatuses[0].started} {.status.conditions[?(@.type=="Ready")].status}')
check_match "status: Running, hostIP, a 127.B loopback pod IP, ready, started" \
  '^Running 127\.0\.0\.1 127\.[0-9]+\.[0-9]+\.[0-9]+ true true True$' "$STATUS"
IP1=$(kubectl get pod "$POD1" -o jsonpath='{.status.podIP}')
LOGS=$(kubectl logs "$POD1")
check_match "kubectl logs shows the program's output" "testapp pid=[0-9]+ message=first" "$LOGS"
check_match "the ConfigMap volume is mounted at its mountPath" "show /etc/testapp/greeting=hello-from-configmap" "$LOGS"
check_match "the service-account volume is mounted" "serviceaccount/namespace=default" "$LOGS"
check_match "\$(POD_IP) was expanded from the downward API" "listening on $IP1:8080" "$LOGS"
PID1=$(sed -nE 's/^testapp pid=([0-9]+) .*/\1/p' <<< "$LOGS" | head -n 1)
check_match "the old process is alive and is testapp" "testapp" "$(tr '\0' ' ' < "/proc/$PID1/cmdline" 2>/dev/null)"
check_eq "the program serves on its pod IP" "$PID1" "$(curl -s --max-time 5 "http://$IP1:8080/pid")"
check_eq "kubectl logs --tail=1 gives the last line" "testapp listening on $IP1:8080" "$(kubectl logs --tail=1 "$POD1")"
check_eq "kubectl logs --limit-bytes cuts the output" "testapp pi" "$(kubectl logs --limit-bytes=10 "$POD1")"
check_match "kubectl logs --timestamps prefixes RFC 3339 times" '^20[0-9-]+T[0-9:.]+Z testapp pid=' \
  "$(kubectl logs --timestamps "$POD1" | head -n 1)"
timeout 3 kubectl logs -f "$POD1" > "$T/follow.out" 2>&1
rc=$?
check_eq "kubectl logs -f keeps streaming (stopped by timeout)" "124" "$rc"
check_match "kubectl logs -f shows the output" "message=first" "$(cat "$T/follow.out")"

kubectl logs -f "$POD1" > "$T/follow2.out" 2>&1 &
FOLLOW=$!
wait_for "a follower of the old pod is attached" 15 grep -q "message=first" "$T/follow2.out"
check "the Deployment is rolled to a new template" \
  kubectl patch deployment testapp --type=json \
  -p '[{"op": "replace", "path": "/spec/template/spec/containers/0/args/6", "value": "second"}]'
check "the rollout completes" kubectl rollout status deployment/testapp --timeout=60s
wait_for "the old process really stops" 30 bash -c ". tests/lib/proc.sh; ! alive $PID1"
wait_for "kubectl logs -f of the old pod ends when its process exits" 15 bash -c ". tests/lib/proc.sh; ! alive $FOLLOW"
check_match "the old process logged its clean stop" "testapp stopping" "$(cat "$T/follow2.out")"
wait_for "a pod of the new template runs" 30 get_pod second
POD2=$(cat "$T/pod-second")
IP2=$(kubectl get pod "$POD2" -o jsonpath='{.status.podIP}')
check_eq "the new process serves the new argument" "second" "$(curl -s --max-time 5 "http://$IP2:8080/")"
wait_for "the old pod is gone from the API" 30 bash -c "! kubectl get pod $POD1 >/dev/null 2>&1"

PID2=$(curl -s --max-time 5 "http://$IP2:8080/pid")
start=$(date +%s%N)
check "kubectl delete pod returns" timeout 20 kubectl delete pod "$POD2" --wait=true
took=$(( ($(date +%s%N) - start) / 1000000 ))
check_match "... promptly (${took} ms)" '^[0-9]{1,4}$' "$took"
wait_for "its process is gone" 15 bash -c ". tests/lib/proc.sh; ! alive $PID2"
wait_for "the Deployment replaces the pod and is Available again" 60 \
  kubectl wait --for=condition=Available --timeout=1s deployment/testapp

# A bare pod without nodeName, placed through the pods/binding subresource as a scheduler does.
setup "a pod without nodeName is created" kubectl apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: bound, namespace: default}
spec:
  terminationGracePeriodSeconds: 5
  containers:
  - {name: app, image: testapp:v1, args: ["--bind", "$(POD_IP)", "bound"],
     env: [{name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]}
YAML
cat > "$T/binding.json" <<'JSON'
{"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "bound"}, "target": {"apiVersion": "v1", "kind": "Node", "name": "smoke-2"}}
JSON
check "it is bound to smoke-2 through pods/binding" \
  kubectl create --raw /api/v1/namespaces/default/pods/bound/binding -f "$T/binding.json"
wait_for "the bound pod becomes Ready" 30 kubectl wait --for=condition=Ready --timeout=1s pod/bound
check_match "its log shows the program" "message=bound" "$(kubectl logs bound)"

# --readiness-retry-ms: a program that answers /readyz with 503 for its first 2 s, under a
# readiness period of 60 s, is Ready soon after (with the kubelet's period: after 60 s).
setup "a pod whose program becomes ready after 2 s is created (readiness period 60 s)" kubectl apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: slowready, namespace: default}
spec:
  nodeName: smoke-1
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: testapp:v1
    args: ["--bind", "$(POD_IP)", "--port", "8082", "--ready-after", "2", "slowready"]
    env: [{name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]
    readinessProbe: {httpGet: {path: /readyz, port: 8082}, periodSeconds: 60}
YAML
wait_for "a starting container's failed readiness probe is retried: Ready within 15 s, not 60" 15 \
  kubectl wait --for=condition=Ready --timeout=1s pod/slowready
check "the pod is deleted" timeout 20 kubectl delete pod slowready

# A process that ignores SIGTERM is killed once the grace period is over.
setup "a pod whose program ignores SIGTERM is created" kubectl apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: stubborn, namespace: default}
spec:
  nodeName: smoke-0
  terminationGracePeriodSeconds: 2
  containers:
  - {name: app, image: testapp:v1, args: ["--bind", "$(POD_IP)", "--ignore-term", "stubborn"],
     env: [{name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]}
YAML
wait_for "it becomes Ready" 30 kubectl wait --for=condition=Ready --timeout=1s pod/stubborn
PID3=$(kubectl logs stubborn | sed -nE 's/^testapp pid=([0-9]+) .*/\1/p')
kubectl logs -f stubborn > "$T/stubborn.out" 2>&1 &
wait_for "a follower of it is attached" 15 grep -q "message=stubborn" "$T/stubborn.out"
start=$(date +%s%N)
check "kubectl delete pod returns after the grace period" timeout 20 kubectl delete pod stubborn
took=$(( ($(date +%s%N) - start) / 1000000 ))
check_match "... of 2 s, not before (${took} ms)" '^(1[89][0-9]{2}|[2-9][0-9]{3})$' "$took"
check_eq "the process got SIGTERM, ignored it, and was killed" "no" \
  "$(alive "$PID3" && echo yes || echo no)"
wait_for "its log shows the ignored SIGTERM" 10 grep -q "testapp ignoring SIGTERM" "$T/stubborn.out"

# A container that exits is restarted after a backoff; its previous log stays readable.
setup "a pod whose program exits after a second is created" kubectl apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: crasher, namespace: default}
spec:
  nodeName: smoke-2
  terminationGracePeriodSeconds: 2
  containers:
  - {name: app, image: testapp:v1, args: ["--bind", "$(POD_IP)", "--port", "8081", "--exit-after", "1", "crash"],
     env: [{name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]}
YAML
setup "a pod whose liveness probe starts failing is created" kubectl apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: unhealthy, namespace: default}
spec:
  nodeName: smoke-2
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: testapp:v1
    args: ["--bind", "$(POD_IP)", "--unhealthy-after", "1", "unhealthy"]
    env: [{name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]
    livenessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 1, failureThreshold: 2}
YAML
restarted() { [ "$(kubectl get pod "$1" -o jsonpath='{.status.containerStatuses[0].restartCount}')" -ge 1 ]; }
wait_for "it is restarted" 40 restarted crasher
wait_for "the liveness probe failure restarts the other" 40 restarted unhealthy
check_match "... after a clean stop (SIGTERM)" "testapp stopping" "$(kubectl logs --previous unhealthy)"
check_eq "lastState records the exit" "3 Error" \
  "$(kubectl get pod crasher -o jsonpath='{.status.containerStatuses[0].lastState.terminated.exitCode} {.status.containerStatuses[0].lastState.terminated.reason}')"
check_match "kubectl logs --previous shows the terminated instance" "testapp crashing" \
  "$(kubectl logs --previous crasher)"
crashlooping() { [ "$(kubectl get pod crasher -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}')" = CrashLoopBackOff ]; }
wait_for "after the second exit it waits in CrashLoopBackOff" 20 crashlooping
check "the crashing pods are deleted" timeout 20 kubectl delete pod crasher unhealthy

# In-cluster access with the pod's own service account: kubectl itself is the container.
incluster_pod() { # NAME
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: default}
spec:
  nodeName: smoke-0
  restartPolicy: Never
  containers:
  - {name: kubectl, image: kubectl, args: ["get", "pods", "bound", "-o", "name"]}
YAML
}
phase_is() { [ "$(kubectl get pod "$1" -o jsonpath='{.status.phase}')" = "$2" ]; }
setup "a pod running kubectl in-cluster is created" kubectl apply -f <(incluster_pod incluster1)
wait_for "without RBAC it fails (restartPolicy Never: phase Failed)" 30 phase_is incluster1 Failed
check_match "its log shows RBAC applied to the pod's service account" \
  'forbidden: User "system:serviceaccount:default:default"' "$(kubectl logs incluster1)"
check "the service account may read pods" \
  kubectl create rolebinding nodesim-view --clusterrole=view --serviceaccount=default:default
setup "a second in-cluster pod is created" kubectl apply -f <(incluster_pod incluster2)
wait_for "with RBAC it succeeds (phase Succeeded)" 30 phase_is incluster2 Succeeded
check_eq "its log has the answer from the API server" "pod/bound" "$(kubectl logs incluster2)"
check_eq "a finished container reports its exit" "0 Completed" \
  "$(kubectl get pod incluster2 -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}')"
check "a finished pod is deleted promptly" timeout 20 kubectl delete pod incluster1

DEPLOY_PIDS=$(for p in $(kubectl get pods -l app=testapp -o name); do kubectl logs "$p" | sed -nE 's/^testapp pid=([0-9]+) .*/\1/p'; done | xargs)
check "deleting the Deployment is complete" kubectl delete deployment testapp --wait=true --timeout=30s
no_testapp_pods() { [ -z "$(kubectl get pods -l app=testapp -o name)" ]; }
wait_for "... its pods are gone" 30 no_testapp_pods
left=
for p in $DEPLOY_PIDS; do alive "$p" && left="$left $p"; done
check_eq "... and so are their processes" "" "$left"

CHILDREN=$(pgrep -P "$NS_PID" | xargs)
check_match "nodesim runs the container processes as its children" '^[0-9]+( [0-9]+)*$' "$CHILDREN"
kill -TERM "$NS_PID"
stopped() { ! alive "$NS_PID"; }
wait_for "nodesim exits on SIGTERM" 20 stopped
left=
for p in $CHILDREN; do alive "$p" && left="$left $p"; done
check_eq "no container process is left behind" "" "$left"
check_eq "nodesim removed its PID file" "no" "$([ -e "$CLUSTER_DIR/pids/nodesim.pid" ] && echo yes || echo no)"
NS_PID=
cleanup_api
check_eq "the simulated nodes are removed again" "" \
  "$(kubectl get nodes -o name | grep 'node/smoke-' | xargs)"
finish
