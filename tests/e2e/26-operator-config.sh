#!/usr/bin/env bash
# scheduler-operator configured through SchedulerPolicyOperator/cluster
# (operator.scheduler-policy.io/v1), on the real local control plane with nodesim nodes:
#   - values outside the schema (enums, minimums, another name) are refused by kubectl apply;
#   - each spec field changes what it should in the scheduler Deployment and nothing else
#     (no new revision, the image and the other fields stay), within seconds, without a
#     restart of the operator; the status reports observedGeneration and conditions;
#   - forceRedeploymentReason rolls the pods with the same revision;
#   - Unmanaged leaves a hand edit of the Deployment alone (Managed puts it back);
#   - Removed deletes the Deployment and the revision ConfigMaps, Managed brings them back.
# Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/stack-script.sh"
OPNS=openshift-kube-scheduler
cleanup() {
  stack_nodesim_stop
  kubectl delete schedulerpolicyoperator cluster --ignore-not-found --wait=false >/dev/null 2>&1
}

deploy() { kubectl -n $OPNS get deployment policy-scheduler -o jsonpath="$1" 2>/dev/null; }
opc() { kubectl get schedulerpolicyoperator cluster -o jsonpath="$1"; }
ocondition() { opc "{.status.conditions[?(@.type==\"$1\")].$2}"; }
observed() { [ "$(opc '{.status.observedGeneration}')" = "$(opc '{.metadata.generation}')" ]; }
patch() { kubectl patch schedulerpolicyoperator cluster --type merge -p "$1" >/dev/null; }
revisions() { kubectl -n $OPNS get cm -l app=policy-scheduler -o name | wc -l; }
# Everything of the Deployment spec but the fields named (jq paths deleted).
rest_of_spec() {
  kubectl -n $OPNS get deployment policy-scheduler -o json |
    jq -S "del(.spec.template.metadata.annotations.\"scheduler.openshift.io/force-redeployment-reason\") | .spec $1"
}

setup "CRDs, namespaces and RBAC install" stack_install
setup "nothing of the operator is left from earlier scripts" stack_reset_operator_state
setup "nodesim brings up three Ready nodes" stack_nodesim_start

# --- the schema refuses what it must -------------------------------------------------------
refused() { # SPEC-YAML
  ! kubectl apply -f - >/dev/null 2>&1 <<EOF
apiVersion: operator.scheduler-policy.io/v1
kind: SchedulerPolicyOperator
metadata: {name: cluster}
spec: $1
EOF
}
check "managementState Sometimes is refused" refused '{managementState: Sometimes}'
check "logLevel Loud is refused" refused '{logLevel: Loud}'
check "operatorLogLevel debug (lower case) is refused" refused '{operatorLogLevel: debug}'
check "replicas 0 is refused" refused '{replicas: 0}'
check "succeededRevisionLimit 0 is refused" refused '{succeededRevisionLimit: 0}'
check "progressDeadlineSeconds 1 is refused" refused '{progressDeadlineSeconds: 1}'
check "a toleration operator Maybe is refused" refused '{tolerations: [{key: a, operator: Maybe}]}'
check "a resource quantity 'lots' is refused" refused '{resources: {requests: {cpu: lots}}}'
check "another name than cluster is refused" bash -c '! kubectl apply -f - >/dev/null 2>&1 <<EOF
apiVersion: operator.scheduler-policy.io/v1
kind: SchedulerPolicyOperator
metadata: {name: other}
spec: {}
EOF'
check "nothing refused was stored" bash -c '[ -z "$(kubectl get schedulerpolicyoperators -o name)" ]'

# --- first start without the CR: the flags ---------------------------------------------------
kubectl apply -f - >/dev/null <<'EOF'
apiVersion: config.openshift.io/v1
kind: Scheduler
metadata: {name: cluster}
spec: {}
EOF
stack_operator_start a --scheduler-replicas 2 > /dev/null
wait_for "without the CR the flags apply: revision 1 serves with 2 replicas" 90 serving 1
check_eq "... 2 replicas, --v=2" "2 true" "$(deploy '{.spec.replicas}') $(deploy '{.spec.template.spec.containers[0].command}' | grep -q -- '--v=2' && echo true)"
check_match "... and the serving flags of OpenShift's default TLS profile (Intermediate), as 4.19's operand" \
  '"--tls-min-version=VersionTLS12","--tls-cipher-suites=TLS_AES_128_GCM_SHA256,.*TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"' \
  "$(deploy '{.spec.template.spec.containers[0].command}')"

kubectl apply -f - >/dev/null <<'EOF'
apiVersion: operator.scheduler-policy.io/v1
kind: SchedulerPolicyOperator
metadata: {name: cluster}
spec: {}
EOF
check_eq "the schema defaults managementState to Managed" "Managed" "$(opc '{.spec.managementState}')"
wait_for "the status reports observedGeneration and Applied=True" 5 \
  bash -c "[ \"\$(kubectl get schedulerpolicyoperator cluster -o jsonpath='{.status.observedGeneration} {.status.conditions[?(@.type==\"Applied\")].status}')\" = \"\$(kubectl get schedulerpolicyoperator cluster -o jsonpath='{.metadata.generation}') True\" ]"
check_eq "an empty spec changes nothing" "2" "$(deploy '{.spec.replicas}')"

# --- each field, and nothing else ------------------------------------------------------------
field_case() { # DESCRIPTION PATCH JSONPATH WANT JQ-DELETIONS
  local before after start t
  before=$(rest_of_spec "| del($5)")
  start=$(date +%s.%N)
  patch "$2"
  if wait_for "$1" 5 bash -c "[ \"\$(kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='$3')\" = '$4' ]"; then
    t=$(echo "$(date +%s.%N) - $start" | bc)
    echo "# $1: took effect in ${t}s"
  fi
  after=$(rest_of_spec "| del($5)")
  check_eq "... and nothing else of the Deployment changed" "$before" "$after"
  wait_for "... observedGeneration follows" 5 observed
}
# earlier scripts on this plane leave DriftReverted Events of their hand edits behind
kubectl -n openshift-kube-scheduler-operator delete events --field-selector reason=DriftReverted >/dev/null 2>&1 || true
field_case "replicas 3" '{"spec":{"replicas":3}}' '{.spec.replicas}' 3 '.replicas'
field_case "logLevel Debug renders --v=4" '{"spec":{"logLevel":"Debug"}}' '{.spec.template.spec.containers[0].command[-1]}' \
  --v=4 '.template.spec.containers[0].command'
field_case "resources" '{"spec":{"resources":{"requests":{"cpu":"20m","memory":"80Mi"},"limits":{"memory":"300Mi"}}}}' \
  '{.spec.template.spec.containers[0].resources.requests.cpu}/{.spec.template.spec.containers[0].resources.limits.memory}' \
  20m/300Mi '.template.spec.containers[0].resources'
field_case "tolerations" '{"spec":{"tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}]}}' \
  '{.spec.template.spec.tolerations[-1].key}' dedicated '.template.spec.tolerations'
field_case "nodeSelector" '{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}' \
  '{.spec.template.spec.nodeSelector}' '{"kubernetes.io/os":"linux"}' '.template.spec.nodeSelector'
field_case "progressDeadlineSeconds 300" '{"spec":{"progressDeadlineSeconds":300}}' '{.spec.progressDeadlineSeconds}' 300 \
  '.progressDeadlineSeconds'
field_case "succeededRevisionLimit 3 (revisionHistoryLimit)" '{"spec":{"succeededRevisionLimit":3}}' \
  '{.spec.revisionHistoryLimit}' 3 '.revisionHistoryLimit'
check_eq "no field made a new revision" "1 1" "$(revision) $(revisions)"
# Each change is announced as applied settings, never as a hand edit put back.
op_events() { kubectl -n openshift-kube-scheduler-operator get events -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}'; }
wait_for "the settings changes are announced as SettingsApplied Events naming the fields" 10 bash -c \
  "$(declare -f op_events); op_events | grep -q 'SettingsApplied: .*spec.replicas' && op_events | grep -q 'SettingsApplied: .*revisionHistoryLimit'"
check_eq "... and none of them as DriftReverted" "0" "$(op_events | grep -c '^DriftReverted' || true)"
wait_for "the changed Deployment rolls out with revision 1" 90 serving 1

# --- operatorLogLevel -------------------------------------------------------------------------
patch '{"spec":{"operatorLogLevel":"Trace"}}'
wait_for "operatorLogLevel Trace sets the operator's -v to 6 without a restart" 5 \
  grep -q 'Operator log verbosity 6' "$CLUSTER_DIR/logs/operator-a.log"
patch '{"spec":{"operatorLogLevel":"Normal"}}'

# --- forceRedeploymentReason ------------------------------------------------------------------
old_pods=$(kubectl -n $OPNS get pods -l app=policy-scheduler -o jsonpath='{.items[*].metadata.name}')
patch '{"spec":{"forceRedeploymentReason":"rotate-1"}}'
wait_for "forceRedeploymentReason is written to the pod template" 5 bash -c \
  "[ \"\$(kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='{.spec.template.metadata.annotations.scheduler\.openshift\.io/force-redeployment-reason}')\" = rotate-1 ]"
pods_replaced() {
  local now p
  now=$(kubectl -n $OPNS get pods -l app=policy-scheduler -o jsonpath='{.items[*].metadata.name}')
  for p in $old_pods; do case " $now " in *" $p "*) return 1 ;; esac; done
}
wait_for "... the scheduler pods are replaced" 120 pods_replaced
wait_for "... with the same revision" 90 serving 1
check_eq "... and no new revision" "1" "$(revisions)"

# --- Unmanaged --------------------------------------------------------------------------------
patch '{"spec":{"managementState":"Unmanaged"}}'
wait_for "Unmanaged is reported on status" 5 bash -c "[ \"\$(kubectl get schedulerpolicyoperator cluster -o jsonpath='{.status.managementState}')\" = Unmanaged ]"
kubectl -n $OPNS scale deploy policy-scheduler --replicas=1 >/dev/null
kubectl -n $OPNS set image deploy/policy-scheduler scheduler=someone-elses:1 >/dev/null
check "the operator has run a whole pass since the hand edit" stack_operator_has_run_since_now a
check_eq "Unmanaged: a hand edit of replicas and image stays" "1 someone-elses:1" \
  "$(deploy '{.spec.replicas} {.spec.template.spec.containers[0].image}')"
patch '{"spec":{"managementState":"Managed"}}'
wait_for "Managed again: the hand edits are put back" 5 bash -c \
  "[ \"\$(kubectl -n $OPNS get deploy policy-scheduler -o jsonpath='{.spec.replicas} {.spec.template.spec.containers[0].image}')\" = \"3 $SCHEDULER_IMAGE\" ]"

# --- Removed ----------------------------------------------------------------------------------
patch '{"spec":{"managementState":"Removed"}}'
gone() { ! kubectl -n $OPNS get deployment policy-scheduler >/dev/null 2>&1 && [ "$(revisions)" = 0 ]; }
wait_for "Removed deletes the Deployment and the revision ConfigMaps" 10 gone
wait_for "... and the status says so (OperandRemoved=True)" 5 bash -c \
  "[ \"\$(kubectl get schedulerpolicyoperator cluster -o jsonpath='{.status.conditions[?(@.type==\"OperandRemoved\")].status}')\" = True ]"
check "... the operator has run a whole pass since" stack_operator_has_run_since_now a
check "... and it stays removed" gone
patch '{"spec":{"managementState":"Managed"}}'
wait_for "Managed brings the operand back" 10 bash -c "kubectl -n $OPNS get deployment policy-scheduler >/dev/null 2>&1"
wait_for "... and a revision serves again" 120 bash -c "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type==\"Available\")].status}')\" = True ] && [ \"\$(kubectl -n $OPNS get cm -l app=policy-scheduler -o name | wc -l)\" -ge 1 ]"
check_eq "... with the CR's settings (3 replicas, --v=4)" "3 --v=4" \
  "$(deploy '{.spec.replicas} {.spec.template.spec.containers[0].command[-1]}')"
check "the operator ran throughout (no restart)" alive "$(cat "$CLUSTER_DIR/pids/operator-a.pid")"

# --- no CRD at all: the flags apply ----------------------------------------------------------
stack_stop_pid operator-a
kubectl delete crd schedulerpolicyoperators.operator.scheduler-policy.io --wait=true >/dev/null
stack_operator_start b --scheduler-replicas 2 > /dev/null
wait_for "without the SchedulerPolicyOperator CRD the operator still reconciles, with its flags (2 replicas)" 30 \
  bash -c "[ \"\$(kubectl -n $OPNS get deploy policy-scheduler -o jsonpath='{.spec.replicas}')\" = 2 ]"
check "... and says why" grep -q 'SchedulerPolicyOperator CRD is not installed' "$CLUSTER_DIR/logs/operator-b.log"
stack_stop_pid operator-b
check "the CRD installs again" stack_install

finish
