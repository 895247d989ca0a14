#!/usr/bin/env bash
# stack_reset_operator_state (tests/lib/stack.sh), which the operator journeys run first to
# start from nothing, on the real local control plane: it removes a Scheduler, a
# SchedulerPolicyOperator, the Deployment, revisions, the policy ConfigMap and the Lease an
# earlier script left; it fails, naming it, when a revision cannot go (a finalizer holds it);
# it fails when one delete in the middle fails, even though the ones after it succeed (the
# status of every delete counts, not only the last one's).
. "$(dirname "$0")/../lib/stack-script.sh"
NS=openshift-kube-scheduler
cleanup() {
  kubectl -n $NS patch configmap policy-scheduler-held --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1
  stack_reset_operator_state >/dev/null 2>&1
}

leave_state() {
  kubectl apply -f - >/dev/null <<'YAML' &&
apiVersion: config.openshift.io/v1
kind: Scheduler
metadata: {name: cluster}
spec: {policy: {name: scheduler-policy}}
---
apiVersion: operator.scheduler-policy.io/v1
kind: SchedulerPolicyOperator
metadata: {name: cluster}
spec: {managementState: Managed}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: policy-scheduler-3, namespace: openshift-kube-scheduler, labels: {app: policy-scheduler}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: scheduler-policy, namespace: openshift-config}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: scheduler-operator-lock, namespace: openshift-kube-scheduler-operator}
spec: {holderIdentity: gone}
YAML
  kubectl -n $NS create deployment policy-scheduler --image=policy-scheduler:latest --replicas=0 >/dev/null
}

setup "CRDs, namespaces and RBAC install" stack_install
setup "an earlier script's operator state is on the plane" leave_state
names_all() {
  local left k
  left=$(stack_operator_leftovers)
  for k in scheduler.config.openshift.io/cluster schedulerpolicyoperator.operator.scheduler-policy.io/cluster \
           deployment.apps/policy-scheduler configmap/policy-scheduler-3 configmap/scheduler-policy \
           lease.coordination.k8s.io/scheduler-operator-lock; do
    grep -qx "$k" <<< "$left" || { echo "$k not named in:" $left; return 1; }
  done
}
check "stack_operator_leftovers names each of them" names_all
check "the reset removes them" stack_reset_operator_state
check_eq "... and nothing is left" "" "$(stack_operator_leftovers)"
check "a reset of a clean plane succeeds" stack_reset_operator_state

# A revision held by a finalizer: deleted (it only gets a deletionTimestamp) but still there.
setup "a revision held by a finalizer" kubectl apply -f - <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: policy-scheduler-held, namespace: openshift-kube-scheduler,
           labels: {app: policy-scheduler}, finalizers: [example.com/hold]}
YAML
STACK_RESET_SECONDS=2 stack_reset_operator_state 2> "$T/held.err"
check_eq "the reset fails while a revision stays" 1 "$?"
check "... naming it" grep -q 'configmap/policy-scheduler-held' "$T/held.err"
setup "the finalizer is removed" \
  kubectl -n $NS patch configmap policy-scheduler-held --type=merge -p '{"metadata":{"finalizers":null}}'

# One delete in the middle fails (a kubectl that deletes the Deployment, then reports an
# error); every delete after it succeeds and the plane ends clean: the reset still fails.
setup "an earlier script's operator state is on the plane again" leave_state
mkdir -p "$T/bin"
cat > "$T/bin/kubectl" <<SH
#!/usr/bin/env bash
"$(command -v kubectl)" "\$@"; rc=\$?
case " \$* " in *" delete deployment policy-scheduler "*) echo "error: injected" >&2; exit 1 ;; esac
exit \$rc
SH
chmod +x "$T/bin/kubectl"
PATH="$T/bin:$PATH" stack_reset_operator_state 2> "$T/mid.err"
check_eq "the reset fails when the Deployment's delete fails" 1 "$?"
check "... naming that delete" grep -q 'failed: kubectl -n openshift-kube-scheduler delete deployment policy-scheduler' "$T/mid.err"
check_eq "... though the deletes after it ran" "" "$(stack_operator_leftovers)"
finish
