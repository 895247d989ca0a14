#!/usr/bin/env bash
# The bundled scheduler with volumes, pod anti-affinity and spreading, end to end: policy-scheduler runs as a host
# process with the documented default policy (deploy/policy.cfg) against four simulated
# nodes in two zones, under its own schedulerName so that nothing else on the plane is its
# business. (a) A WaitForFirstConsumer claim is bound to the local PV of the one node the
# PV allows, and the pod lands there; (b) three replicas with required pod anti-affinity
# on kubernetes.io/hostname land on three different nodes; (c) four replicas selected by a
# Service spread over both zones, two and two (SelectorSpreadPriority); (d) a pod with required
# pod affinity to a pod not created yet is placed as soon as that pod is bound; (e) a second
# scheduler from a v1 configuration with VolumeBinding's bindTimeoutSeconds: 3 waits in PreBind
# for a claim left to a provisioner (selected-node set, the pod not bound), times out in 1.32's
# words and retries, and binds the pod once a PV for the claim appears and is bound.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
NS=sched-volumes
SCHED=volumes-scheduler
NODES=(sv-0 sv-1 sv-2 sv-3)
NS_PID=
SCHED_PID=
SCHED2_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-volumes.log"

# Later scripts share this plane: nothing of this one may stay behind.
cleanup_api() {
  kubectl delete namespace "$NS" --ignore-not-found --wait=false
  kubectl delete pv sv-local sv-provisioned --ignore-not-found --wait=false
  kubectl delete storageclass sv-local sv-later --ignore-not-found
  kubectl delete node "${NODES[@]}" --ignore-not-found --wait=false
  kubectl delete lease -n kube-node-lease "${NODES[@]}" --ignore-not-found --wait=false
} >/dev/null 2>&1
cleanup() {
  stop_pid "$SCHED2_PID"
  stop_pid "$SCHED_PID"
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-volumes.pid"
  cleanup_api
  rm -rf "$T"
}
trap cleanup EXIT

plane_nodes_up volumes "four nodes in two zones" --not-alone --nodes 4 --name-prefix sv --zones 2

PORT=$(free_port)
"$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file deploy/policy.cfg \
  --scheduler-name "$SCHED" --leader-elect=false --bind-address 127.0.0.1 --port "$PORT" --secure-port 0 \
  >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "policy-scheduler with the documented default policy becomes ready" 30 \
  curl -sf "http://127.0.0.1:$PORT/readyz"
check_match "it watches the kinds that policy reads, and binds claims" \
  "the policy reads persistentvolumes, persistentvolumeclaims, storageclasses, csinodes, services, replicationcontrollers, replicasets, statefulsets; WaitForFirstConsumer claims are bound before their pods" \
  "$(cat "$LOG")"

kubectl create namespace "$NS" >/dev/null

# ---- (a) WaitForFirstConsumer: claim bound to the local PV of sv-2, pod on sv-2 ----
kubectl apply -f - >/dev/null <<YAML
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sv-local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: sv-local}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: sv-local
  persistentVolumeReclaimPolicy: Retain
  local: {path: /mnt/sv}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: kubernetes.io/hostname, operator: In, values: [sv-2]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: $NS}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: sv-local
  resources: {requests: {storage: 512Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: uses-claim, namespace: $NS}
spec:
  schedulerName: $SCHED
  containers:
  - {name: app, image: sv-app}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data}
YAML
wait_for "(a) the pod with a WaitForFirstConsumer claim is bound" 30 pod_bound "$NS" uses-claim
check_eq "(a) ... to the one node the local PV allows" sv-2 "$(pod_node "$NS" uses-claim)"
check_eq "(a) the scheduler set the PV's claimRef to the claim" "$NS/data yes" \
  "$(kubectl get pv sv-local -o jsonpath='{.spec.claimRef.namespace}/{.spec.claimRef.name} {.metadata.annotations.pv\.kubernetes\.io/bound-by-controller}')"
claim_bound() {
  local got
  got=$(kubectl -n "$NS" get pvc data -o jsonpath='{.status.phase} {.spec.volumeName}')
  [ "$got" = "Bound sv-local" ] || { echo "claim: $got"; return 1; }
}
wait_for "(a) the PV controller completes it: the claim is Bound to that PV" 30 claim_bound

# ---- (b) required anti-affinity on the hostname: three replicas, three nodes ----
deployment() { # NAME REPLICAS EXTRA-SPEC
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: $NS}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      schedulerName: $SCHED
      containers:
      - {name: app, image: sv-app, resources: {requests: {cpu: 10m, memory: 16Mi}}}
$3
YAML
}
deployment apart 3 "      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: apart}}
            topologyKey: kubernetes.io/hostname" | kubectl apply -f - >/dev/null
bound_nodes() { # LABEL: node names of the bound pods, sorted
  kubectl -n "$NS" get pods -l "app=$1" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep . | sort
}
n_bound() { # LABEL N: exactly N pods of app=LABEL are bound
  local got
  got=$(bound_nodes "$1" | wc -l)
  [ "$got" = "$2" ] || { echo "$got bound"; return 1; }
}
wait_for "(b) three anti-affine replicas are bound" 30 n_bound apart 3
check_eq "(b) ... on three different nodes" 3 "$(bound_nodes apart | uniq | wc -l)"

# ---- (c) a Service's four replicas spread 2+2 over the two zones ----
kubectl -n "$NS" create service clusterip spread --tcp=80:8080 >/dev/null
kubectl -n "$NS" patch service spread --type=merge -p '{"spec":{"selector":{"app":"spread"}}}' >/dev/null
deployment spread 4 "" | kubectl apply -f - >/dev/null
wait_for "(c) the Service's four replicas are bound" 30 n_bound spread 4
zones=$(for n in $(bound_nodes spread); do
  kubectl get node "$n" -o jsonpath='{.metadata.labels.topology\.kubernetes\.io/zone}{"\n"}'
done | sort | uniq -c | awk '{print $2 "=" $1}' | xargs)
check_eq "(c) ... two in each zone" "zone-0=2 zone-1=2" "$zones"

# ---- (d) required pod affinity to a pod not there yet: placed as soon as that pod is ----
# Upstream's AssignedPodAdded moves the waiting pod at once; without it the pod waited for
# the 60 s flush.
deployment follower 1 "      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: leader}}
            topologyKey: topology.kubernetes.io/zone" | kubectl apply -f - >/dev/null
follower_failed() {
  kubectl -n "$NS" get events --field-selector reason=FailedScheduling -o jsonpath='{.items[*].involvedObject.name}' |
    grep -q follower
}
wait_for "(d) the pod that requires affinity to app=leader fails first: no such pod yet" 30 follower_failed
deployment leader 1 "" | kubectl apply -f - >/dev/null
wait_for "(d) the leader is bound" 30 n_bound leader 1
wait_for "(d) the follower is bound within 20 s of it, not at the 60 s flush" 20 n_bound follower 1
check_eq "(d) ... in the leader's zone" \
  "$(kubectl get node "$(bound_nodes leader)" -o jsonpath='{.metadata.labels.topology\.kubernetes\.io/zone}')" \
  "$(kubectl get node "$(bound_nodes follower)" -o jsonpath='{.metadata.labels.topology\.kubernetes\.io/zone}')"

check "the scheduler is still running" alive "$SCHED_PID"
check_eq "no binding failed" 0 \
  "$(curl -sf "http://127.0.0.1:$PORT/metrics" | awk '/^scheduler_binding_total\{result="error"\}/ {print $2}')"

# ---- (e) bindTimeoutSeconds: PreBind waits for a provisioned claim, times out, retries ----
SCHED2=volumes-v1
PORT2=$(free_port)
cat > "$T/v1.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
clientConnection: {kubeconfig: $KUBECONFIG}
profiles:
- schedulerName: $SCHED2
  pluginConfig:
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 3}
YAML
"$BIN_DIR/policy-scheduler" --config "$T/v1.yaml" --bind-address 127.0.0.1 --port "$PORT2" --secure-port 0 \
  >> "$LOG" 2>&1 &
SCHED2_PID=$!
wait_for "(e) policy-scheduler from a v1 file with bindTimeoutSeconds: 3 becomes ready" 30 \
  curl -sf "http://127.0.0.1:$PORT2/readyz"
kubectl apply -f - >/dev/null <<YAML
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sv-later}
provisioner: example.com/not-running
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: later, namespace: $NS}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: sv-later
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: waits, namespace: $NS}
spec:
  schedulerName: $SCHED2
  containers:
  - {name: app, image: sv-app}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: later}
YAML
selected() { kubectl -n "$NS" get pvc later -o jsonpath='{.metadata.annotations.volume\.kubernetes\.io/selected-node}'; }
has_selected() { [ -n "$(selected)" ]; }
wait_for "(e) the claim left to a provisioner gets volume.kubernetes.io/selected-node" 30 has_selected
timed_out() {
  kubectl -n "$NS" get events --field-selector involvedObject.name=waits -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' |
    grep -q 'binding volumes: context deadline exceeded'
}
wait_for "(e) PreBind times out after 3 s in 1.32's words (a FailedScheduling Event)" 30 timed_out
pod_pending() { ! pod_bound "$@"; }
check "(e) ... and the pod is not bound meanwhile" pod_pending "$NS" waits
node=$(selected)
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: {name: sv-provisioned}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: sv-later
  persistentVolumeReclaimPolicy: Delete
  hostPath: {path: /tmp/sv-provisioned}
  claimRef: {namespace: $NS, name: later}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: kubernetes.io/hostname, operator: In, values: [$node]}
YAML
wait_for "(e) once a PV for the claim is bound, the pod is bound" 60 pod_bound "$NS" waits
check_eq "(e) ... on the node the claim selected" "$node" "$(pod_node "$NS" waits)"
check "the v1 scheduler is still running" alive "$SCHED2_PID"

finish
