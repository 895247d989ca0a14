#!/usr/bin/env bash
# scheduler-operator reports ClusterOperator scheduler-policy (config.openshift.io/v1) when
# that CRD exists, on the real local control plane with nodesim nodes and kubectl:
#   - without the CRD the operator serves as ever and says once that it does not report;
#   - the CRD installed while the operator runs (tests/data/crds, the OpenShift schema):
#     the ClusterOperator appears, with Available/Progressing/Degraded/Upgradeable,
#     relatedObjects and versions;
#   - the operator's service account may write ClusterOperator scheduler-policy only: it
#     cannot read, update, patch the status of or delete another operator's;
#   - a legacy Policy in use: Upgradeable=False pointing at policy-validator
#     --translate=v1beta1; none: Upgradeable=True;
#   - a rejected policy: Degraded=True with the Scheduler's reason while Available stays
#     True (the old revision serves, its lastTransitionTime unchanged);
#   - the ClusterOperator deleted: recreated; its status conditions edited by hand: restored;
#   - the CRD removed while the operator runs: nothing degrades; installed again: reported.
# Leaves no CRD, ClusterOperator or policy behind. Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/stack-script.sh"
OPNS=openshift-kube-scheduler
CO_CRD=tests/data/crds/clusteroperators.config.openshift.io.yaml
cleanup() {
  stack_nodesim_stop
  kubectl delete crd clusteroperators.config.openshift.io --ignore-not-found >/dev/null 2>&1
  kubectl patch scheduler cluster --type=merge -p '{"spec":{"policy":null}}' >/dev/null 2>&1
  kubectl -n openshift-config delete configmap scheduler-policy --ignore-not-found >/dev/null 2>&1
}

co() { kubectl get clusteroperators.config.openshift.io scheduler-policy -o jsonpath="$1"; }
ccondition() { co "{.status.conditions[?(@.type==\"$1\")].$2}"; }
cis() { [ "$(ccondition "$1" status)" = "$2" ]; }   # TYPE STATUS
creason() { [ "$(ccondition "$1" reason)" = "$2" ]; }
related() { co '{range .status.relatedObjects[*]}{.group}/{.resource}/{.namespace}/{.name}{"\n"}{end}'; }
has_related() { # whole output first: grep -q stopping early would fail the pipe (pipefail)
  local all; all=$(related)
  grep -qxF "$1" <<< "$all" || { echo "no $1 in:"; echo "$all"; return 1; }
}
put_policy() { # FILE
  kubectl create configmap -n openshift-config scheduler-policy --from-file=policy.cfg="$1" \
    --dry-run=client -o yaml | kubectl apply -f - >/dev/null
}
# the operator's log is appended to: only this script's operator's lines count
not_reporting_all() { cat "$CLUSTER_DIR/logs/operator-co.log" 2>/dev/null | grep -c 'not reporting a ClusterOperator'; }
not_reporting_lines() { echo $(( $(not_reporting_all) - NOT_REPORTING_BEFORE )); }
test_ge() { [ "$("${@:2}")" -ge "$1" ]; }   # test_ge N CMD...: CMD prints at least N

setup "CRDs, namespaces and RBAC install" stack_install
setup "nothing of the operator is left from earlier scripts" stack_reset_operator_state
setup "nodesim brings up three Ready nodes" stack_nodesim_start

# --- without the CRD ------------------------------------------------------------------------
NOT_REPORTING_BEFORE=$(not_reporting_all)
stack_operator_start co > /dev/null
wait_for "without the ClusterOperator CRD the operator serves revision 1" 90 serving 1
check "... there is no ClusterOperator API" bash -c '! kubectl get clusteroperators.config.openshift.io 2>/dev/null'
wait_for "... and the operator says it does not report one" 10 \
  grep -q 'not reporting a ClusterOperator' "$CLUSTER_DIR/logs/operator-co.log"
sleep 5
check_eq "... once, though it keeps looking for the CRD" "1" "$(not_reporting_lines)"
check "... Degraded=False on the Scheduler" [ "$(condition Degraded status)" = False ]

# --- the CRD installed while the operator runs ---------------------------------------------
setup "the ClusterOperator CRD (OpenShift's schema) is accepted" kubectl apply -f "$CO_CRD"
check "... and established" kubectl wait --for condition=Established --timeout=30s crd/clusteroperators.config.openshift.io
wait_for "the running operator picks the CRD up: ClusterOperator scheduler-policy appears" 60 \
  kubectl get clusteroperators.config.openshift.io scheduler-policy
wait_for "... Available=True" 20 cis Available True
check "... Progressing=False" cis Progressing False
check "... Degraded=False" cis Degraded False
check "... no legacy policy in use: Upgradeable=True" cis Upgradeable True
check_match "... every condition has a lastTransitionTime" '^[0-9TZ:-]+ [0-9TZ:-]+ [0-9TZ:-]+ [0-9TZ:-]+$' \
  "$(co '{.status.conditions[*].lastTransitionTime}')"
check_eq "... no other condition type" "Available Degraded Progressing Upgradeable" \
  "$(co '{.status.conditions[*].type}' | tr ' ' '\n' | sort | xargs)"
check "... relatedObjects: the Scheduler" has_related config.openshift.io/schedulers//cluster
check "... the namespaces" bash -c "$(declare -f co related has_related); has_related /namespaces//openshift-config &&
  has_related /namespaces//openshift-kube-scheduler-operator && has_related /namespaces//openshift-kube-scheduler"
check "... the revision" has_related /configmaps/openshift-kube-scheduler/policy-scheduler-config-1
check "... the Deployment" has_related apps/deployments/openshift-kube-scheduler/policy-scheduler
check_match "... versions: the operator's" '^[0-9]+\.[0-9]+' "$(co '{.status.versions[?(@.name=="operator")].version}')"
check_eq "... and the scheduler's (its image tag)" "latest" "$(co '{.status.versions[?(@.name=="policy-scheduler")].version}')"
check_eq "the operator still logged 'not reporting' only once" "1" "$(not_reporting_lines)"

# --- the operator's account writes its own ClusterOperator and no other ---------------------
SA=system:serviceaccount:openshift-kube-scheduler-operator:scheduler-operator
OPKC=$CLUSTER_DIR/operator.kubeconfig
can() { kubectl auth can-i "$@" --as="$SA" >/dev/null 2>&1; }
check "the operator's account may update ClusterOperator scheduler-policy" \
  can update clusteroperators.config.openshift.io/scheduler-policy
check "... and its status" can update clusteroperators.config.openshift.io/scheduler-policy --subresource=status
check "... but may not update another ClusterOperator" bash -c \
  "$(declare -f can); SA=$SA; ! can update clusteroperators.config.openshift.io/kube-scheduler"
check "... nor patch its status" bash -c \
  "$(declare -f can); SA=$SA; ! can patch clusteroperators.config.openshift.io/kube-scheduler --subresource=status"
check "... nor delete one" bash -c "$(declare -f can); SA=$SA; ! can delete clusteroperators.config.openshift.io/kube-scheduler"
check "another operator's ClusterOperator is created (by the admin)" bash -c \
  "printf '%s\n' 'apiVersion: config.openshift.io/v1' 'kind: ClusterOperator' 'metadata: {name: kube-scheduler}' 'spec: {}' |
   kubectl apply -f - >/dev/null"
out=$(kubectl --kubeconfig "$OPKC" patch clusteroperators.config.openshift.io kube-scheduler --type=merge \
  -p '{"metadata":{"labels":{"hijacked":"yes"}}}' 2>&1)
check_match "... the operator's token cannot label it (Forbidden)" 'forbidden|Forbidden' "$out"
out=$(kubectl --kubeconfig "$OPKC" get clusteroperators.config.openshift.io kube-scheduler 2>&1)
check_match "... nor read it" 'forbidden|Forbidden' "$out"
check "... it is deleted again" kubectl delete clusteroperators.config.openshift.io kube-scheduler --wait=true

# --- a legacy Policy in use -----------------------------------------------------------------
put_policy deploy/policy.cfg
kubectl patch Scheduler cluster --type=merge -p '{"spec":{"policy":{"name":"scheduler-policy"}}}' >/dev/null
wait_for "the documented policy rolls out as revision 2" 90 serving 2
wait_for "a legacy Policy in use: Upgradeable=False" 20 cis Upgradeable False
check "... reason LegacyPolicyInUse" creason Upgradeable LegacyPolicyInUse
msg=$(ccondition Upgradeable message)
check_match "... the message names kubectl scheduler-policy migrate" 'kubectl scheduler-policy migrate' "$msg"
check_match "... and says OpenShift 4.10 removed the Policy API" '4\.10' "$msg"
check_match "... and names the ConfigMap" 'openshift-config/scheduler-policy' "$msg"
wait_for "... relatedObjects follow: revision 2 and the policy ConfigMap" 20 bash -c \
  "$(declare -f co related has_related); has_related /configmaps/openshift-kube-scheduler/policy-scheduler-config-2 &&
   has_related /configmaps/openshift-config/scheduler-policy"
wait_for "... Available=True, Progressing=False" 20 bash -c \
  "$(declare -f co ccondition cis); cis Available True && cis Progressing False"

# --- a rejected policy ------------------------------------------------------------------------
avail_since=$(ccondition Available lastTransitionTime)
sed 's/{"name" : "GeneralPredicates"},/{"name" : "GeneralPredicates"},\n{"name" : "PodFitsResources"},/' \
  deploy/policy.cfg > "$T/bad.cfg"
put_policy "$T/bad.cfg"
wait_for "a rejected policy: Degraded=True" 30 cis Degraded True
check_eq "... with the Scheduler's reason" "$(condition Degraded reason)" "$(ccondition Degraded reason)"
check_match "... and its message (which revision keeps running)" 'revision 2' "$(ccondition Degraded message)"
check "... Available stays True: revision 2 serves" cis Available True
check_eq "... its lastTransitionTime did not move" "$avail_since" "$(ccondition Available lastTransitionTime)"
check_eq "... the Scheduler still serves revision 2" "2" "$(revision)"
put_policy deploy/policy.cfg
wait_for "the policy fixed: Degraded=False" 30 cis Degraded False

# --- disturbances of the ClusterOperator itself ----------------------------------------------
check "someone deletes the ClusterOperator" kubectl delete clusteroperators.config.openshift.io scheduler-policy
wait_for "... it is recreated" 30 kubectl get clusteroperators.config.openshift.io scheduler-policy
wait_for "... with its conditions" 30 bash -c "$(declare -f co ccondition cis); cis Available True && cis Upgradeable False"
degraded_since=$(ccondition Degraded lastTransitionTime)
kubectl get clusteroperators.config.openshift.io scheduler-policy -o json |
  jq '.status.conditions |= map(if .type == "Degraded" then .status = "True" | .reason = "HandEdited" | .lastTransitionTime = "2020-01-01T00:00:00Z" else . end)
      | .status.conditions |= map(select(.type != "Upgradeable")) | .status.versions = []' > "$T/edited.json"
check "someone edits its status by hand (Degraded=True, Upgradeable and versions removed)" \
  kubectl replace --raw /apis/config.openshift.io/v1/clusteroperators/scheduler-policy/status -f "$T/edited.json"
wait_for "... the conditions are restored" 30 bash -c \
  "$(declare -f co ccondition cis creason); cis Degraded False && creason Degraded AsExpected && cis Upgradeable False"
check "... and the versions" [ -n "$(co '{.status.versions[?(@.name=="operator")].version}')" ]
check "... Degraded's lastTransitionTime moved from the hand-written one" \
  [ "$(ccondition Degraded lastTransitionTime)" != 2020-01-01T00:00:00Z ]

# --- no policy any more -------------------------------------------------------------------------
kubectl patch Scheduler cluster --type=merge -p '{"spec":{"policy":null}}' >/dev/null
wait_for "the policy unset: Upgradeable=True again" 60 cis Upgradeable True
wait_for "... and the profile's policy is rolled out" 90 settled
# --- the CRD removed while the operator runs, and installed again ---------------------------
# Every Degraded the Scheduler goes through meanwhile, from a watch (a flip lasting a few
# milliseconds counts).
kubectl get scheduler cluster --watch -o jsonpath='{.status.conditions[?(@.type=="Degraded")].reason}{"\n"}' \
  > "$T/degraded.txt" 2>&1 &
watcher=$!
sleep 1
check "the ClusterOperator CRD is removed while the operator runs" \
  kubectl delete crd clusteroperators.config.openshift.io --wait=true
wait_for "... the operator notices (it says again that it does not report one)" 30 \
  test_ge 2 not_reporting_lines
check "... and has run a whole pass since" stack_operator_has_run_since_now co
kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
check_eq "... the Scheduler stays Degraded=False throughout (a missing CRD is not a refused write)" "AsExpected" \
  "$(sort -u "$T/degraded.txt" | xargs)"
check "... the revision serves on" settled
setup "the CRD installed again" kubectl apply -f "$CO_CRD"
wait_for "... ClusterOperator scheduler-policy is reported again" 60 bash -c \
  "$(declare -f co ccondition cis); cis Available True && cis Upgradeable True"
check "the operator is alive" alive "$(cat "$CLUSTER_DIR/pids/operator-co.pid")"
finish
