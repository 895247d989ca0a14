#!/usr/bin/env bash
# scheduler-operator end to end, on the real local control plane with nodesim nodes, with
# kubectl as the administrator and the operator running with its own service account:
# the documented journey; the cluster's version on the status; profileCustomizations refused
# by name; an invalid policy never makes a revision or touches the
# Deployment; ConfigMap deleted and recreated; profile switches; the operator killed -9
# mid-rollout finishes without a duplicate revision; two replicas never both write;
# kube-apiserver restarted while the policy changes; the shipped RBAC is enough and does not
# reach Secrets. Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/stack-script.sh"
cleanup() {
  [ -z "${NODESIM:-}" ] || kill -CONT "$NODESIM" 2>/dev/null
  stack_nodesim_stop
  kubectl delete namespace e2e --ignore-not-found --wait=false >/dev/null 2>&1
}

revisions() { kubectl -n openshift-kube-scheduler get configmaps -l app=policy-scheduler -o name | sort -V | xargs; }
deployment_rv() { kubectl -n openshift-kube-scheduler get deployment policy-scheduler -o jsonpath='{.metadata.resourceVersion}'; }
revision_is() { [ "$(revision)" = "$1" ]; }

setup "CRD, namespaces and RBAC install" stack_install
setup "nothing of the operator is left from earlier scripts" stack_reset_operator_state
setup "nodesim brings up three Ready nodes" stack_nodesim_start
stack_operator_start a --progress-deadline 120 > "$T/port-a"
wait_for "the operator creates Scheduler/cluster with an empty spec" 30 kubectl get scheduler cluster
check_eq "... and its spec is empty" "{}" "$(kubectl get scheduler cluster -o jsonpath='{.spec}')"
wait_for "the profile's plugin set rolls out as revision 1 and becomes Available" 120 settled
check_eq "revision 1 comes from the profile" "1 LowNodeUtilization" \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.revision} {.status.policy.profile}')"
check_eq "status.cluster: a 1.20 API server, whose kube-scheduler reads v1beta1 and a Policy" \
  "1.20 kubescheduler.config.k8s.io/v1beta1 true" \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.cluster.version} {.status.cluster.schedulerConfigAPI} {.status.cluster.schedulerReadsPolicy}')"

# --- spec.profileCustomizations: refused by name, never dropped ---------------------------
degraded_is() { [ "$(condition Degraded status) $(condition Degraded reason)" = "$1" ]; }
check "dynamicResourceAllocation: Enabled is accepted by the API server" \
  kubectl patch scheduler cluster --type=merge -p '{"spec":{"profileCustomizations":{"dynamicResourceAllocation":"Enabled"}}}'
wait_for "... and refused: Degraded, reason DynamicResourceAllocationUnsupported" 30 \
  degraded_is "True DynamicResourceAllocationUnsupported"
check_eq "... revision 1 keeps running, Disabled in effect" "1 Disabled" \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.revision} {.status.profileCustomizations.dynamicResourceAllocation}')"
check "a customization 4.19 does not define is kept by the API server" \
  kubectl patch scheduler cluster --type=merge -p '{"spec":{"profileCustomizations":{"dynamicResourceAllocation":null,"gangScheduling":"On"}}}'
wait_for "... and refused by name: UnknownProfileCustomization" 30 degraded_is "True UnknownProfileCustomization"
check_match "... the message names the field" 'spec\.profileCustomizations\.gangScheduling' \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type=="Degraded")].message}')"
check "Disabled is accepted" \
  kubectl patch scheduler cluster --type=merge -p '{"spec":{"profileCustomizations":{"gangScheduling":null,"dynamicResourceAllocation":"Disabled"}}}'
wait_for "... Degraded clears" 30 degraded_is "False AsExpected"
check_eq "... still revision 1" "1" "$(revision)"
kubectl patch scheduler cluster --type=merge -p '{"spec":{"profileCustomizations":null}}' >/dev/null

# --- the documented journey -----------------------------------------------------------
stack_put_policy deploy/policy.cfg
check "kubectl patch Scheduler cluster points at the policy ConfigMap" \
  kubectl patch Scheduler cluster --type=merge -p '{"spec":{"policy":{"name":"scheduler-policy"}}}'
wait_for "a new revision (2) is written from the ConfigMap" 30 written 2
wait_for "the Deployment rolls to revision 2 and the rollout completes" 150 serving 2
check_eq "status.policy (the serving source) names the ConfigMap and its resourceVersion" \
  "scheduler-policy $(kubectl -n openshift-config get cm scheduler-policy -o jsonpath='{.metadata.resourceVersion}')" \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.policy.configMap} {.status.policy.resourceVersion}')"
check_match "status.policy has the source's sha256" '^[0-9a-f]{64}$' \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.policy.sha256}')"
check_eq "the revision ConfigMap is immutable and labelled" "true 2" \
  "$(kubectl -n openshift-kube-scheduler get cm policy-scheduler-config-2 -o jsonpath='{.immutable} {.metadata.labels.revision}')"
check_eq "every running scheduler pod is at revision 2" "2" \
  "$(kubectl -n openshift-kube-scheduler get pods -l app=policy-scheduler --field-selector=status.phase=Running \
      -o jsonpath='{.items[*].metadata.labels.revision}' | tr ' ' '\n' | sort -u | xargs)"
pod=$(kubectl -n openshift-kube-scheduler get pods -l app=policy-scheduler,revision=2 -o jsonpath='{.items[0].metadata.name}')
wait_for "kubectl logs <scheduler pod> | grep predicates shows the active predicates" 30 \
  bash -c "kubectl -n openshift-kube-scheduler logs $pod | grep -q \"Creating scheduler with fit predicates 'map\[CheckNodeUnschedulable:{} CheckVolumeBinding:{} GeneralPredicates:{}\""
check_eq "status.predicates is the effective ordered list, mandatory ones included" \
  "CheckNodeUnschedulable GeneralPredicates NoDiskConflict PodToleratesNodeTaints MaxEBSVolumeCount MaxGCEPDVolumeCount MaxCSIVolumeCountPred MaxAzureDiskVolumeCount CheckVolumeBinding NoVolumeZoneConflict MatchInterPodAffinity" \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.predicates[*]}')"
check_match "status.priorities carries the weights" '"name":"LeastRequestedPriority","weight":1\}' \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.priorities}')"
check_match "Events say PolicyAccepted and RevisionCreated" 'PolicyAccepted.*RevisionCreated|RevisionCreated.*PolicyAccepted' \
  "$(kubectl get events -n openshift-kube-scheduler-operator -o jsonpath='{.items[*].reason}')"

# --- an invalid policy changes nothing that runs ----------------------------------------
before_revs=$(revisions) before_rv=$(deployment_rv)
sed 's/{"name" : "GeneralPredicates"},/{"name" : "GeneralPredicates"},\n{"name" : "PodFitsResources"},/' \
  deploy/policy.cfg > "$T/bad.cfg"
stack_put_policy "$T/bad.cfg"
wait_for "GeneralPredicates + PodFitsResources is rejected: PolicyValid=False" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].status}")" = False ]'
msg=$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type=="PolicyValid")].message}')
check_match "the message has line, column, both entries and the rule's code" \
  'policy\.cfg:7:11: error: predicate PodFitsResources \(predicates\[2\]\) is already part of GeneralPredicates \(predicates\[1\]\).*\[general-predicates-duplicate\]' "$msg"
check_match "Degraded says which revision keeps running" 'revision 2' \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type=="Degraded")].message}')"
check_match "status.rejected carries the diagnostics with line and column" '"line":7' \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.rejected}')"
check_match "a PolicyRejected Event is recorded" 'PolicyRejected' "$(kubectl get events -n openshift-kube-scheduler-operator -o jsonpath='{.items[*].reason}')"
check "... and the operator has run a whole pass since (it had its chance to write)" stack_operator_has_run_since_now a
check_eq "no revision was written" "$before_revs" "$(revisions)"
check_eq "the Deployment was not touched" "$before_rv" "$(deployment_rv)"
check_eq "the active revision is still 2" "2" "$(revision)"
kubectl create namespace e2e >/dev/null
kubectl -n e2e run still-scheduling --image=e2e --restart=Never >/dev/null
wait_for "the running revision keeps scheduling pods" 30 \
  bash -c '[ -n "$(kubectl -n e2e get pod still-scheduling -o jsonpath="{.spec.nodeName}")" ]'

stack_put_policy "$(stack_weight_policy 2)"
wait_for "the fixed policy is accepted as revision 3" 30 written 3
check_eq "PolicyValid is True again and rejected is cleared" "True " \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type=="PolicyValid")].status} {.status.rejected}')"
wait_for "revision 3 rolls out and serves" 150 serving 3

# --- ConfigMap deleted and recreated ------------------------------------------------------
kubectl -n openshift-config delete configmap scheduler-policy >/dev/null
wait_for "a deleted policy ConfigMap is reported as PolicyNotFound" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].reason}")" = PolicyNotFound ]'
check_eq "... and revision 3 keeps running" "3" "$(revision)"
stack_put_policy "$(stack_weight_policy 3)"
wait_for "the recreated ConfigMap makes revision 4" 30 written 4
wait_for "revision 4 rolls out and serves" 150 serving 4

# --- profile switches -----------------------------------------------------------------
check "switching to HighNodeUtilization with no policy" \
  kubectl patch Scheduler cluster --type=merge -p '{"spec":{"policy":null,"profile":"HighNodeUtilization"}}'
wait_for "the HighNodeUtilization profile makes revision 5" 30 written 5
wait_for "revision 5 rolls out and serves" 150 serving 5
check_eq "its priorities are MostRequestedPriority weight 5 and the rest" "MostRequestedPriority=5" \
  "$(kubectl get scheduler cluster -o jsonpath='{range .status.priorities[*]}{.name}={.weight}{"\n"}{end}' | grep -E '^(MostRequested|LeastRequested|BalancedResource)' | xargs)"
check "switching to NoScoring" kubectl patch Scheduler cluster --type=merge -p '{"spec":{"profile":"NoScoring"}}'
wait_for "NoScoring makes revision 6" 30 written 6
wait_for "revision 6 rolls out and serves" 150 serving 6
check_match "... with no priorities" '^(|\[\])$' "$(kubectl get scheduler cluster -o jsonpath='{.status.priorities}')"
check_match "only 5 revisions are kept" '^configmap/policy-scheduler-config-2 .*config-6$' "$(revisions)"

# --- killed -9 mid-rollout --------------------------------------------------------------
# nodesim (the kubelets) is frozen until the operator is replaced, so that no scheduler pod
# of the new revision can start before the kill: the rollout is still under way then,
# however fast a pod becomes ready.
NODESIM=$(cat "$CLUSTER_DIR/pids/nodesim.pid")
kill -STOP "$NODESIM"
kubectl patch Scheduler cluster --type=merge -p '{"spec":{"profile":"LowNodeUtilization","policy":{"name":"scheduler-policy"}}}' >/dev/null
wait_for "a policy change starts revision 7" 30 written 7
kill -KILL "$(cat "$CLUSTER_DIR/pids/operator-a.pid")"
stack_stop_pid operator-a
# restarted as the same replica (a container restarted in its pod keeps the pod's name, the
# identity): it takes its own Lease back at once. A standby taking over a killed leader's
# Lease once it runs out is 21-operator-leadership's (and test-kube-leader's) to check.
stack_operator_start a --progress-deadline 120 > "$T/port-a"
kill -CONT "$NODESIM"
wait_for "a restarted operator finishes the rollout" 150 serving 7
check_eq "... without a duplicate revision" "7" "$(revision)"
check_match "... the newest revision ConfigMap is 7" 'config-7$' "$(revisions)"

# --- two replicas never both write -----------------------------------------------------
stack_operator_start c --progress-deadline 120 > "$T/port-c"
metric() { stack_operator_metrics "$1" | sed -n "s/^scheduler_operator_$2 //p"; }
leader_is() { [ "$(metric "$1" leader)" = "$2" ]; }
wait_for "the second replica is ready as a standby" 30 bash -c "curl -sf http://127.0.0.1:$(cat "$T/port-c")/readyz | grep -q standby"
check_eq "exactly one replica leads" "1 0" "$(metric a leader) $(metric c leader)"
stack_put_policy "$(stack_weight_policy 4)"
wait_for "the leader applies a change (revision 8)" 30 written 8
check_eq "the standby wrote nothing" "0" "$(grep -c 'manager.c.*\] \(create\|update\|patch\|delete\|bind\|event\) ' "$CLUSTER_DIR/logs/operator-c.log")"
stack_stop_pid operator-a
wait_for "a clean stop hands the lease over at once" 10 leader_is c 1
wait_for "the new leader sees revision 8 through" 150 serving 8

# --- kube-apiserver restarted while the policy changes -------------------------------
stack_put_policy "$(stack_weight_policy 5)" &
edit=$!
sleep 0.3
check "kube-apiserver restarts" tests/cluster/restart kube-apiserver 2
wait "$edit"
stack_put_policy "$(stack_weight_policy 5)"
wait_for "the change made around the restart is applied (revision 9)" 60 written 9
check_eq "the revision holds the new weight" "5" \
  "$(kubectl -n openshift-kube-scheduler get cm policy-scheduler-config-9 -o jsonpath='{.data.policy\.cfg}' | jq '.priorities[] | select(.name=="LeastRequestedPriority") | .weight')"

# --- the shipped RBAC ---------------------------------------------------------------------
OPK="$CLUSTER_DIR/operator.kubeconfig"
check_eq "the operator's service account cannot read Secrets" "no" \
  "$(kubectl --kubeconfig "$OPK" auth can-i get secrets -n openshift-kube-scheduler 2>/dev/null)"
check_eq "... nor list them cluster-wide" "no" "$(kubectl --kubeconfig "$OPK" auth can-i list secrets -A 2>/dev/null)"
check_match "reading a Secret with its credentials is Forbidden" 'Forbidden' \
  "$(kubectl --kubeconfig "$OPK" -n kube-system get secrets 2>&1)"
check_eq "it can patch the Scheduler status" "yes" \
  "$(kubectl --kubeconfig "$OPK" auth can-i patch schedulers.config.openshift.io/cluster --subresource=status 2>/dev/null)"
check_eq "it cannot change the Scheduler spec" "no" \
  "$(kubectl --kubeconfig "$OPK" auth can-i update schedulers.config.openshift.io/cluster 2>/dev/null)"
finish
