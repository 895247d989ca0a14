#!/usr/bin/env bash
# One writer, on the real local control plane: the leading scheduler-operator is frozen
# (SIGSTOP) in the middle of a rollout for longer than the lease duration; the standby
# takes over and writes; then the old leader is continued (SIGCONT). It must write nothing
# more: no object the operator owns changes, its log shows no further action, and it
# stands by. The old leader is set up to have work the moment it continues, whatever its
# caches show by then: it resyncs every second, its progress deadline (10 s) has long
# passed for the rollout it froze in, and it renders a different Deployment than the new
# leader (--scheduler-verbosity 3 against 2), so a replica that still believed it led would
# roll back or "repair" at once. Also checks the shape of what the operator writes:
# managedFields under "scheduler-operator", Events in the operator's namespace about the
# Scheduler, repeats aggregated. Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/stack-script.sh"
cleanup() {
  [ -z "${NODESIM:-}" ] || kill -CONT "$NODESIM" 2>/dev/null
  stack_nodesim_stop
}

OPNS=openshift-kube-scheduler-operator
# A 10 s lease renewed every second (the flags kube components take; 15 s, 10 s and 2 s by
# default): each wait on the lease is 5 s shorter.
LEASE_SECONDS=10
LEASE_FLAGS=(--leader-elect-lease-duration ${LEASE_SECONDS}s --leader-elect-renew-deadline 7s
             --leader-elect-retry-period 1s)
put_policy() { stack_put_policy "$(stack_weight_policy "$1")"; }   # WEIGHT: the documented policy at that LeastRequestedPriority weight
metric() { stack_operator_metrics "$1" | sed -n "s/^scheduler_operator_$2 //p"; }
leader_is() { [ "$(metric "$1" leader)" = "$2" ]; }
leads() { [ "$(metric "$1" leader)" = 1 ]; }
holder() { kubectl -n $OPNS get lease scheduler-operator-lock -o jsonpath='{.spec.holderIdentity}'; }
# Info lines of the manager: every action applied is one ("create ...", "mark revision 2
# as failed", "event ..."); standing by is logged as a warning.
actions() { grep -c '^I.* manager\.c:[0-9]*\] ' "$CLUSTER_DIR/logs/operator-$1.log"; }
# What the operator owns: the Scheduler (resourceVersion), the Deployment's spec
# (generation: the controller-manager keeps writing its status), the revisions.
owned_state() {
  kubectl get scheduler cluster -o jsonpath='Scheduler rv {.metadata.resourceVersion}{"\n"}'
  kubectl -n openshift-kube-scheduler get deployment policy-scheduler -o jsonpath='Deployment generation {.metadata.generation}{"\n"}'
  kubectl -n openshift-kube-scheduler get configmaps -l app=policy-scheduler \
    -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion}{"\n"}{end}' | sort
}

setup "CRD, namespaces and RBAC install" stack_install
setup "nothing of the operator is left from earlier scripts" stack_reset_operator_state
setup "nodesim brings up three Ready nodes" stack_nodesim_start
check_match "the election's timing must fit: a renew deadline not under the lease duration is refused" \
  'renew-deadline must be less than --leader-elect-lease-duration' \
  "$("$BIN_DIR/scheduler-operator" --leader-elect-lease-duration 5s --leader-elect-renew-deadline 5s 2>&1)"
check_match "... and so is a duration that is not one" "invalid value '15' for --leader-elect-lease-duration" \
  "$("$BIN_DIR/scheduler-operator" --leader-elect-lease-duration 15 2>&1)"
stack_operator_start a "${LEASE_FLAGS[@]}" --progress-deadline 10 --resync 1 --scheduler-verbosity 3 > "$T/port-a"
wait_for "replica a leads" 30 leads a
wait_for "revision 1 rolls out and serves" 150 serving 1
stack_operator_start b "${LEASE_FLAGS[@]}" --progress-deadline 300 --scheduler-verbosity 2 > "$T/port-b"
wait_for "replica b stands by" 30 bash -c "curl -sf http://127.0.0.1:$(cat "$T/port-b")/readyz | grep -q standby"

# --- the shape of what the operator writes ------------------------------------------------
check_eq "the Deployment's fields are managed by scheduler-operator" "scheduler-operator" \
  "$(kubectl -n openshift-kube-scheduler get deployment policy-scheduler \
      -o jsonpath='{range .metadata.managedFields[*]}{.manager}{"\n"}{end}' | grep -v kube-controller-manager | sort -u | xargs)"
check_eq "the Scheduler status is managed by scheduler-operator" "scheduler-operator" \
  "$(kubectl get scheduler cluster \
      -o jsonpath='{range .metadata.managedFields[*]}{.manager}{"\n"}{end}' | grep -v '^kubectl' | sort -u | xargs)"
wait_for "Events about the Scheduler are in $OPNS" 20 \
  bash -c "kubectl -n $OPNS get events -o jsonpath='{range .items[*]}{.involvedObject.kind}/{.involvedObject.name}{\"\\n\"}{end}' | grep -qx Scheduler/cluster"
check_eq "... and none in default" "" \
  "$(kubectl -n default get events -o jsonpath='{range .items[?(@.involvedObject.kind=="Scheduler")]}{.reason} {end}')"

# --- frozen mid-rollout --------------------------------------------------------------------
# nodesim (the kubelets) is frozen until the leader is, so that no scheduler pod of the new
# revision can start before: the rollout is still under way then, however fast a pod
# becomes ready.
NODESIM=$(cat "$CLUSTER_DIR/pids/nodesim.pid")
kill -STOP "$NODESIM"
put_policy 1
kubectl patch Scheduler cluster --type=merge -p '{"spec":{"policy":{"name":"scheduler-policy"}}}' >/dev/null
wait_for "a policy change starts revision 2" 30 written 2
wait_for "... and the rollout is in progress" 5 bash -c "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type==\"Progressing\")].status}')\" = True ]"
kill -STOP "$(cat "$CLUSTER_DIR/pids/operator-a.pid")"
stopped_at=$(date +%s)
kill -CONT "$NODESIM"
wait_for "the standby takes over once the lease runs out" $((LEASE_SECONDS * 3)) leads b
check "... no sooner than one lease duration after its last renew (renews every second)" test $(( $(date +%s) - stopped_at )) -ge $((LEASE_SECONDS - 2))
check_eq "the Lease names b" "b" "$(holder)"
wait_for "b finishes the rollout of revision 2" 150 serving 2
put_policy 2
wait_for "b writes revision 3" 30 written 3
wait_for "revision 3 rolls out and serves" 150 serving 3
sleep 2
owned_state > "$T/before"
a_actions=$(actions a)

# --- continued: the old leader must write nothing more ------------------------------------
kill -CONT "$(cat "$CLUSTER_DIR/pids/operator-a.pid")"
wait_for "a notices it no longer leads" 20 leader_is a 0
sleep $((LEASE_SECONDS + 5))
check_eq "a applied no action after it was continued" "$a_actions" "$(actions a)"
owned_state > "$T/after"
check_eq "nothing the operator owns changed (Scheduler, Deployment spec, revisions)" \
  "$(xargs < "$T/before")" "$(xargs < "$T/after")"
check_eq "the Lease still names b" "b" "$(holder)"
check_eq "b still leads, a stands by" "1 0" "$(metric b leader) $(metric a leader)"
check_match "a's /readyz says it stands by" 'standby' "$(curl -s "http://127.0.0.1:$(cat "$T/port-a")/readyz")"
check_eq "the Deployment keeps b's rendering (--v=2)" "1" \
  "$(kubectl -n openshift-kube-scheduler get deployment policy-scheduler -o jsonpath='{.spec.template.spec.containers[0].command}' | grep -c -- '--v=2')"

# --- repeats are aggregated, not duplicated ------------------------------------------------
# The same mistake twice (with the good policy back in between): one Event row per
# reporting replica, its series counting the repeat.
sed 's/{"name" : "GeneralPredicates"},/{"name" : "GeneralPredicates"},\n{"name" : "PodFitsResources"},/' \
  "$T/w2.cfg" > "$T/bad.cfg"
rejected() { [ "$(condition PolicyValid)" = False ]; }
accepted() { [ "$(condition PolicyValid)" = True ]; }
for i in 1 2; do
  kubectl create configmap -n openshift-config scheduler-policy --from-file=policy.cfg="$T/bad.cfg" \
    --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  wait_for "the bad policy is rejected (time $i)" 30 rejected
  put_policy 2
  wait_for "the good policy is accepted again (time $i)" 30 accepted
done
check_eq "one PolicyRejected Event row (reported by b)" "b" \
  "$(kubectl -n $OPNS get events.events.k8s.io -o jsonpath='{range .items[?(@.reason=="PolicyRejected")]}{.reportingInstance}{"\n"}{end}' | xargs)"
wait_for "... whose series counts 2" 10 bash -c \
  "[ \"\$(kubectl -n $OPNS get events.events.k8s.io -o jsonpath='{range .items[?(@.reason==\"PolicyRejected\")]}{.series.count}{end}')\" = 2 ]"
dups=$(kubectl -n $OPNS get events.events.k8s.io \
  -o jsonpath='{range .items[*]}{.reportingInstance}|{.reason}|{.note}{"\n"}{end}' | sort | uniq -d)
check_eq "no replica reported the same Event in two rows" "" "$dups"
finish
