#!/usr/bin/env bash
# kubectl-scheduler_policy, installed by `make install` (into a temporary DESTDIR) and found
# by kubectl v1.20 on PATH, against the operator stack on the plane: history names the
# serving revision with its source's resourceVersion and sha256 and the rejected source;
# validate agrees with the operator on the cluster's policy and checks files; diff shows a
# weight change between two revisions; explain gives the scheduler's reasons for a pod that
# fits nowhere and says where a scheduled pod went.
. "$(dirname "$0")/../lib/stack-script.sh"
NS=plugin-e2e-$$
cleanup() {
  stack_nodesim_stop
  kubectl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1
}

check "make install puts the plugin and its man page under DESTDIR" \
  env -u MAKEFLAGS -u MFLAGS make -s install DESTDIR="$T/root" PREFIX=/usr O="${BIN_DIR%/bin}"
check "... the program" test -x "$T/root/usr/bin/kubectl-scheduler_policy"
check "... the man page" test -f "$T/root/usr/share/man/man1/kubectl-scheduler_policy.1"
export PATH="$T/root/usr/bin:$PATH"
check_match "kubectl plugin list finds it on PATH" "kubectl-scheduler_policy" "$(kubectl plugin list 2>&1)"
plugin() { kubectl scheduler-policy "$@"; }

serving_after() { settled && [ "$(revision)" -gt "$1" ]; }

setup "the stack installs (kubectl apply -k)" stack_install
setup "nodesim brings up three Ready nodes" stack_nodesim_start
stack_operator_start plugin > /dev/null
wait_for "the operator has a serving revision" 150 settled
# Weights no revision has had, so each policy makes a new revision.
W=$(( $(kubectl -n openshift-kube-scheduler get cm -l app=policy-scheduler -o jsonpath='{.items[*].metadata.labels.revision}' |
        tr ' ' '\n' | sort -n | tail -1) + 40 ))
R0=$(revision)
stack_put_policy "$(stack_weight_policy "$W")"
kubectl patch scheduler cluster --type=merge -p '{"spec":{"policy":{"name":"scheduler-policy"}}}' >/dev/null
wait_for "a revision with weight $W serves" 150 serving_after "$R0"
R1=$(revision)
stack_put_policy "$(stack_weight_policy $((W + 1)))"
wait_for "a revision with weight $((W + 1)) serves" 150 serving_after "$R1"
R2=$(revision)

# --- history ------------------------------------------------------------------------------
plugin history > "$T/history" 2>&1
check_match "history has the table header" "^REVISION +SOURCE +API +RESOURCEVERSION +SHA256 +CREATED +STATE" "$(head -1 "$T/history")"
rv=$(kubectl -n openshift-config get cm scheduler-policy -o jsonpath='{.metadata.resourceVersion}')
sha=$(kubectl get scheduler cluster -o jsonpath='{.status.policy.sha256}')
check_match "revision $R2 is serving, a Policy, from the ConfigMap's resourceVersion and sha256" \
  "^$R2 +configmap/scheduler-policy +Policy +$rv +$sha +[0-9T:-]+Z +serving$" "$(grep -E "^$R2 " "$T/history")"
check_match "revision $R1 is superseded" "^$R1 .* superseded$" "$(grep -E "^$R1 " "$T/history")"
check_eq "-o json agrees: exactly one serving revision, $R2" "$R2" \
  "$(plugin history -o json | jq -r '[.[] | select(.state=="serving") | .revision] | join(" ")')"

# --- validate -----------------------------------------------------------------------------
check_match "validate: the cluster's policy is valid" "configmap/scheduler-policy:policy.cfg: valid" "$(plugin validate)"
check "validate FILE: the documented policy" plugin validate deploy/policy.cfg
sed 's/{"name" : "GeneralPredicates"},/{"name" : "GeneralPredicates"},\n{"name" : "PodFitsResources"},/' \
  deploy/policy.cfg > "$T/bad.cfg"
out=$(plugin validate "$T/bad.cfg"); rc=$?
check_eq "validate FILE: an invalid policy exits 1" 1 "$rc"
check_match "... with the operator's diagnostic" "bad.cfg:7:11: error: .*\[general-predicates-duplicate\]" "$out"
stack_put_policy "$T/bad.cfg"
wait_for "the operator rejects it" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].status}")" = False ]'
out=$(plugin validate); rc=$?
check_eq "validate: the cluster's policy is now invalid (exit 1)" 1 "$rc"
check_match "... the same line and column the Scheduler status reports" \
  "$(kubectl get scheduler cluster -o jsonpath='{.status.rejected.diagnostics[0].line}'):$(kubectl get scheduler cluster -o jsonpath='{.status.rejected.diagnostics[0].column}'): error: .*general-predicates-duplicate" "$out"
check_match "history lists the rejected source last" "^- +configmap/scheduler-policy .* rejected \(InvalidPolicy\)$" \
  "$(plugin history | tail -1)"
check_match "... and revision $R2 still serving" "^$R2 .* serving$" "$(plugin history | grep -E "^$R2 ")"

# --- diff ---------------------------------------------------------------------------------
out=$(plugin diff "$R1" "$R2"); rc=$?
check_eq "diff $R1 $R2 exits 1 (they differ)" 1 "$rc"
check_match "... the weight change" "~ LeastRequestedPriority weight $W -> $((W + 1))" "$out"
check_match "... and nothing else" "^--- revision $R1 \(configmap/scheduler-policy resourceVersion [0-9]+\)
\+\+\+ revision $R2 \(configmap/scheduler-policy resourceVersion [0-9]+\)
priorities:
  ~ LeastRequestedPriority weight $W -> $((W + 1))$" "$out"
check "diff $R2 $R2: no difference (exit 0)" plugin diff "$R2" "$R2"
out=$(plugin diff "$R2" 99999 2>&1); rc=$?
check_eq "diff with a revision that does not exist: exit 2" 2 "$rc"

# --- explain ------------------------------------------------------------------------------
kubectl create namespace "$NS" >/dev/null
kubectl -n "$NS" run fits --image=e2e --restart=Never >/dev/null
kubectl -n "$NS" run too-big --image=e2e --restart=Never --requests=cpu=500 >/dev/null
wait_for "a pod asking for 500 CPUs gets PodScheduled=False" 60 \
  bash -c "[ \"\$(kubectl -n $NS get pod too-big -o jsonpath='{.status.conditions[?(@.type==\"PodScheduled\")].status}')\" = False ]"
wait_for "... and a FailedScheduling event" 30 \
  bash -c "kubectl -n $NS get events --field-selector involvedObject.name=too-big,reason=FailedScheduling -o name | grep -q ."
out=$(plugin explain -n "$NS" too-big); rc=$?
check_eq "explain: exit 1 for an unscheduled pod" 1 "$rc"
check_match "... it is pending, PodScheduled=False Unschedulable" "pod $NS/too-big is Pending and not scheduled.*PodScheduled=False reason Unschedulable" "$(tr '\n' ' ' <<< "$out")"
check_match "... the summary, one reason per line" "0/3 nodes are available:
  [0-9] " "$out"
check_match "... Insufficient cpu among them" "
  [0-9] Insufficient cpu" "$out"
check_match "... the FailedScheduling events" "FailedScheduling.*0/3 nodes are available" "$out"
wait_for "the small pod is scheduled" 60 bash -c "[ -n \"\$(kubectl -n $NS get pod fits -o jsonpath='{.spec.nodeName}')\" ]"
check_match "explain: a scheduled pod says where (exit 0)" "pod $NS/fits is scheduled on node node-[0-9]" \
  "$(plugin explain -n "$NS" pod/fits)"
finish
