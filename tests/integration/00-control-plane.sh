#!/usr/bin/env bash
# The local control plane is a real one: a CRD and its status subresource, and a watch
# that sees a ConfigMap change, all through kubectl.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
T=$(mktemp -d); trap 'rm -rf "$T"; [ -z "${WPID:-}" ] || kill "$WPID" 2>/dev/null' EXIT

check_match "kubectl talks to kube-apiserver v1.20.2" 'Server Version: v1\.20\.2' "$(kubectl version --short 2>&1)"

cat > "$T/crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.smoke.example.com}
spec:
  group: smoke.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
          status: {type: object, properties: {phase: {type: string}}}
YAML
check "a CRD is accepted" kubectl apply -f "$T/crd.yaml"
wait_for "the CRD becomes Established" 30 kubectl wait --for condition=Established --timeout=1s crd/widgets.smoke.example.com
check "an object of it is created" kubectl apply -f - <<'YAML'
apiVersion: smoke.example.com/v1
kind: Widget
metadata: {name: w1, namespace: default}
spec: {size: 3}
status: {phase: ignored-on-create}
YAML
check_eq "status is not set through the main resource" "" \
  "$(kubectl get widgets.smoke.example.com w1 -o jsonpath='{.status.phase}')"
kubectl get widgets.smoke.example.com w1 -o json | jq '.status = {phase: "Ready"} | .spec.size = 99' > "$T/w1.json"
check "the status subresource accepts a status" \
  kubectl replace --raw /apis/smoke.example.com/v1/namespaces/default/widgets/w1/status -f "$T/w1.json"
check_eq "status changed through the subresource" "Ready" "$(kubectl get widgets.smoke.example.com w1 -o jsonpath='{.status.phase}')"
check_eq "spec did not change through the status subresource" "3" "$(kubectl get widgets.smoke.example.com w1 -o jsonpath='{.spec.size}')"

check "a ConfigMap is created" kubectl create configmap watched --from-literal=k=v1
kubectl get configmap watched --watch --output-watch-events -o jsonpath='{.type} {.object.data.k}{"\n"}' > "$T/watch.out" 2>&1 &
WPID=$!
sleep 1
check "the ConfigMap is changed" kubectl patch configmap watched --type=merge -p '{"data":{"k":"v2"}}'
wait_for "the watch sees the change" 10 grep -q '^MODIFIED v2$' "$T/watch.out"

# Only the processes this plane started (by PID file) are looked at: the machine is shared.
pids=$(cat "$CLUSTER_DIR"/pids/{etcd,kube-apiserver,kube-controller-manager}.pid | paste -sd'|')
check "etcd, kube-apiserver and the controller manager listen on 127.0.0.1 only" \
  bash -c "ss -ltnpH | grep -E 'pid=($pids),' | awk '{print \$4}' | grep -qv '^127\.0\.0\.1:' && exit 1 || ss -ltnpH | grep -qE 'pid=($pids),'"
finish
