#!/usr/bin/env bash
# scheduler-operator under ordinary disturbances, on the real local control plane with
# nodesim nodes and kubectl as the administrator. Each block tries to break one promise:
#   - first install with an invalid policy: a scheduler runs anyway (the profile's built-in
#     policy), and the status says why the admin's policy is not used;
#   - a completed revision is not rolled back when a scheduler pod goes unready long after
#     its rollout (progress deadline 20 s);
#   - hand edits of the Deployment (replicas, image, args, volumes, nodeSelector) and of the
#     revision ConfigMaps (deleted, or replaced with other data) are put back within seconds,
#     with an Event saying what was reverted;
#   - a rollout writes the status once per change of state;
#   - an apply the API refuses (a quota) shows as Degraded=ApplyFailed with the API's
#     message; a policy whose revision cannot fit in a ConfigMap is rejected naming the limit;
#   - the Scheduler deleted: recreated with an empty spec and a Warning event naming what was
#     lost;
#   - an unparsable spec.defaultNodeSelector is rejected on status, nothing rolls.
# Runs under tools/with-cluster.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
. tests/lib/stack.sh
T=$(mktemp -d)
OPNS=openshift-kube-scheduler
cleanup() {
  for p in "$CLUSTER_DIR"/pids/operator-*.pid; do [ -e "$p" ] && stack_stop_pid "$(basename "$p" .pid)"; done
  stack_nodesim_stop
  kubectl -n $OPNS delete resourcequota revisions --ignore-not-found --wait=false >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

sched() { kubectl get scheduler cluster -o jsonpath="$1"; }
revision() { sched '{.status.revision}'; }
condition() { sched "{.status.conditions[?(@.type==\"$1\")].$2}"; }
deploy() { kubectl -n $OPNS get deployment policy-scheduler -o jsonpath="$1"; }
settled() { [ "$(condition Progressing status)" = False ] && [ "$(condition Available status)" = True ]; }
serving() { settled && [ "$(revision)" = "$1" ]; }
# A rollout ends on the operator's verdict, not on a guess at how long one takes on this
# (shared, loaded) machine: rolls_out waits until revision R serves, fails at once when the
# operator marks R failed (its progress deadline passed), and otherwise gives up only past
# that deadline ($DEADLINE, what the operator was started with) plus the time to notice.
# When it fails it shows what the rollout was waiting for.
DEADLINE=20
rollout_failed() {
  kubectl -n $OPNS get configmap "policy-scheduler-config-$1" \
    -o jsonpath='{.metadata.annotations.scheduler\.openshift\.io/rollout-failed}' 2>/dev/null
}
rollout_state() {
  echo "Scheduler: revision $(revision); $(sched '{range .status.conditions[*]}{.type}={.status} ({.reason}) {end}')"
  echo "Progressing: $(condition Progressing message)"
  echo "Deployment: template revision $(deploy '{.spec.template.metadata.annotations.scheduler\.openshift\.io/revision}'), status $(deploy '{.status}')"
  kubectl -n $OPNS get pods -l app=policy-scheduler -o wide 2>&1
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
}
rolls_out() { # WHAT R
  local what=$1 deadline failed
  deadline=$(( $(date +%s) + DEADLINE + 60 ))
  while :; do
    if serving "$2"; then ok "$what"; return 0; fi
    failed=$(rollout_failed "$2")
    if [ -n "$failed" ] || [ "$(date +%s)" -ge $deadline ]; then
      not_ok "$what" "${failed:+the operator marked revision $2 failed: $failed}" \
        "${failed:-no verdict $((DEADLINE + 60))s after the rollout began}" "$(rollout_state)"
      return 1
    fi
    sleep 0.2
  done
}
written() { kubectl -n $OPNS get configmap "policy-scheduler-config-$1" >/dev/null 2>&1; }
newest_revision() {
  kubectl -n $OPNS get configmaps -l app=policy-scheduler -o jsonpath='{range .items[*]}{.metadata.labels.revision}{"\n"}{end}' |
    sort -n | tail -1
}
# Events about the Scheduler, where the operator writes them (its own namespace):
# "REASON: MESSAGE" lines.
EVNS=openshift-kube-scheduler-operator
events() {
  kubectl -n $EVNS get events --field-selector involvedObject.kind=Scheduler \
    -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}'
}
event_matches() { events | grep -qE "$1" || { echo "no event matches $1; events:"; events; return 1; }; }
status_writes() { grep -c 'update Scheduler cluster status' "$CLUSTER_DIR/logs/operator-a.log"; }

setup "CRD, namespaces and RBAC install" stack_install
setup "nothing of the operator is left from earlier scripts" stack_reset_operator_state
setup "nodesim brings up three Ready nodes" stack_nodesim_start

# --- first install with an invalid policy --------------------------------------------------
sed 's/{"name" : "GeneralPredicates"},/{"name" : "GeneralPredicates"},\n{"name" : "PodFitsResources"},/' \
  deploy/policy.cfg > "$T/bad.cfg"
stack_put_policy "$T/bad.cfg"
kubectl apply -f - >/dev/null <<'EOF'
apiVersion: config.openshift.io/v1
kind: Scheduler
metadata: {name: cluster}
spec: {policy: {name: scheduler-policy}}
EOF
stack_operator_start a --progress-deadline $DEADLINE > "$T/port-a"
wait_for "first install with an invalid policy: PolicyValid=False" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].status}")" = False ]'
wait_for "... a scheduler runs anyway: the profile's plugin set serves as revision 1" 60 serving 1
check_eq "... revision 1 comes from the profile" "LowNodeUtilization" "$(sched '{.status.policy.profile}')"
check_eq "... Degraded=True, reason InvalidPolicy" "True InvalidPolicy" \
  "$(condition Degraded status) $(condition Degraded reason)"
check_match "... Degraded says the profile's plugin set runs instead" 'plugin set of profile LowNodeUtilization' \
  "$(condition Degraded message)"

stack_put_policy deploy/policy.cfg
wait_for "the fixed policy is written as a new revision" 30 bash -c "[ -n \"\$(kubectl -n $OPNS get cm -l app=policy-scheduler -o name)\" ]"
sleep 1
R=$(newest_revision)
rolls_out "... and rolls out (revision $R)" "$R"
check_eq "PolicyValid and Degraded recover" "True False" "$(condition PolicyValid status) $(condition Degraded status)"

# --- resources of the scheduler pods ----------------------------------------------------
check_eq "the scheduler pods have requests, a memory limit and priority system-cluster-critical" \
  "15m 64Mi 256Mi system-cluster-critical" \
  "$(deploy '{.spec.template.spec.containers[0].resources.requests.cpu} {.spec.template.spec.containers[0].resources.requests.memory} {.spec.template.spec.containers[0].resources.limits.memory} {.spec.template.spec.priorityClassName}')"

# --- no spurious rollback ------------------------------------------------------------------
stack_put_policy "$(stack_weight_policy 6)"
R=$((R + 1))
rolls_out "another policy rolls out (revision $R; revision $((R - 1)) is the one before)" "$R"
started=$(deploy '{.metadata.annotations.scheduler\.openshift\.io/rollout-started}')
left=$(( $(date -d "$started" +%s) + 23 - $(date +%s) ))
[ "$left" -gt 0 ] && sleep "$left"
pod=$(kubectl -n $OPNS get pods -l app=policy-scheduler,revision=$R -o jsonpath='{.items[0].metadata.name}')
uid=$(kubectl -n $OPNS get pod "$pod" -o jsonpath='{.metadata.uid}')
pidfile="$CLUSTER_DIR/nodesim/pods/$uid/scheduler.pid"
kill_scheduler() { local p; p=$(cut -d' ' -f1 "$pidfile" 2>/dev/null) && [ -n "$p" ] && kill -KILL "$p"; }
restarted() { [ "$(kubectl -n $OPNS get pod "$pod" -o jsonpath='{.status.containerStatuses[0].restartCount}')" -ge "$1" ]; }
# Killed twice: the first restart is immediate, the second waits 10 s, so the pod is unready
# for a while, well after the 20 s progress deadline of revision R's completed rollout.
check "the process of scheduler pod $pod is killed (past the progress deadline)" kill_scheduler
wait_for "... nodesim restarts it" 20 restarted 1
sleep 1
check "... and it is killed again" kill_scheduler
wait_for "... the pod is unready" 10 \
  bash -c "[ \"\$(kubectl -n $OPNS get pod $pod -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}')\" = False ]"
# Nothing must follow: asserted once the operator has run a whole pass begun while the pod
# is unready (it reads the pod's readiness through its watches), not after a guessed sleep.
check "... the operator has run a whole pass since" stack_operator_has_run_since_now a
check_eq "revision $R is still deployed (no rollback)" "$R" "$(deploy '{.spec.template.metadata.annotations.scheduler\.openshift\.io/revision}')"
check_eq "revision $R is not marked failed" "" \
  "$(kubectl -n $OPNS get cm policy-scheduler-config-$R -o jsonpath='{.metadata.annotations.scheduler\.openshift\.io/rollout-failed}')"
check "no RolledBack or RolloutFailed event" bash -c "! kubectl get events -A -o jsonpath='{.items[*].reason}' | grep -qE 'RolledBack|RolloutFailed'"
wait_for "the pod comes back and revision $R serves" 60 serving "$R"
check_eq "Degraded stays False" "False" "$(condition Degraded status)"

# --- hand edits are put back -----------------------------------------------------------------
kubectl -n $OPNS scale deploy policy-scheduler --replicas=0 >/dev/null
wait_for "kubectl scale --replicas=0 is put back to 2" 15 bash -c "[ \"\$(kubectl -n $OPNS get deploy policy-scheduler -o jsonpath='{.spec.replicas}')\" = 2 ]"
wait_for "... with an Event naming replicas" 10 event_matches 'DriftReverted: .*replicas'
kubectl -n $OPNS set image deploy/policy-scheduler scheduler=someone-elses:1 >/dev/null
wait_for "an edited image is put back" 15 bash -c "[ \"\$(kubectl -n $OPNS get deploy policy-scheduler -o jsonpath='{.spec.template.spec.containers[0].image}')\" = $SCHEDULER_IMAGE ]"
wait_for "... with an Event naming the image" 10 event_matches 'DriftReverted: .*image'
# nodesim reports a container whose image it does not run as Ready (a kubelet would fail
# to pull it): such a pod would pass for a scheduler and stall every later rollout.
for p in $(kubectl -n $OPNS get pods -l app=policy-scheduler \
    -o jsonpath='{range .items[?(@.spec.containers[0].image=="someone-elses:1")]}{.metadata.name}{" "}{end}'); do
  kubectl -n $OPNS delete pod "$p" --wait=false >/dev/null
done
kubectl -n $OPNS patch deploy policy-scheduler --type=json \
  -p '[{"op":"add","path":"/spec/template/spec/containers/0/args","value":["--v=9"]}]' >/dev/null
wait_for "added args are removed" 15 bash -c "[ -z \"\$(kubectl -n $OPNS get deploy policy-scheduler -o jsonpath='{.spec.template.spec.containers[0].args}')\" ]"
wait_for "... with an Event naming args" 10 event_matches 'DriftReverted: .*args'
kubectl -n $OPNS patch deploy policy-scheduler --type=json \
  -p '[{"op":"replace","path":"/spec/template/spec/volumes/0/configMap/name","value":"policy-scheduler-config-1"}]' >/dev/null
wait_for "a volume pointed at another revision is put back" 15 bash -c "[ \"\$(kubectl -n $OPNS get deploy policy-scheduler -o jsonpath='{.spec.template.spec.volumes[0].configMap.name}')\" = policy-scheduler-config-$R ]"
wait_for "... with an Event naming volumes" 10 event_matches 'DriftReverted: .*volumes'
kubectl -n $OPNS patch deploy policy-scheduler --type=merge \
  -p '{"spec":{"template":{"spec":{"nodeSelector":{"disk":"ssd"}}}}}' >/dev/null
wait_for "an edited nodeSelector is put back" 15 bash -c "[ \"\$(kubectl -n $OPNS get deploy policy-scheduler -o jsonpath='{.spec.template.spec.nodeSelector}')\" = '{\"node-role.kubernetes.io/master\":\"\"}' ]"
wait_for "... with an Event naming nodeSelector" 10 event_matches 'DriftReverted: .*nodeSelector'

hash2=$(kubectl -n $OPNS get cm policy-scheduler-config-$R -o jsonpath='{.metadata.annotations.scheduler\.openshift\.io/config-hash}')
policy2=$(kubectl -n $OPNS get cm policy-scheduler-config-$R -o jsonpath='{.data.policy\.cfg}')
kubectl -n $OPNS delete cm policy-scheduler-config-$R >/dev/null
wait_for "the deleted active revision ConfigMap is recreated" 15 written "$R"
check_eq "... with the same config-hash" "$hash2" \
  "$(kubectl -n $OPNS get cm policy-scheduler-config-$R -o jsonpath='{.metadata.annotations.scheduler\.openshift\.io/config-hash}')"
wait_for "... with an Event saying so" 10 event_matches "DriftReverted: .*policy-scheduler-config-$R"
kubectl -n $OPNS get cm policy-scheduler-config-$R -o json |
  jq '.data["policy.cfg"] = "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[]}" | del(.metadata.resourceVersion, .metadata.uid, .metadata.creationTimestamp)' \
  > "$T/tampered.json"
# The ConfigMap is immutable: replacing its data means deleting and creating it. With the
# operator running it would put the revision back in between, so it is stopped meanwhile.
stack_stop_pid operator-a
kubectl -n $OPNS delete cm "policy-scheduler-config-$R" >/dev/null
kubectl create -f "$T/tampered.json" >/dev/null
check_eq "revision $R's ConfigMap now holds other data under the same config-hash" "$hash2 yes" \
  "$(kubectl -n $OPNS get cm policy-scheduler-config-$R -o jsonpath='{.metadata.annotations.scheduler\.openshift\.io/config-hash}') $(kubectl -n $OPNS get cm policy-scheduler-config-$R -o jsonpath='{.data.policy\.cfg}' | grep -q '"predicates":\[\]' && echo yes)"
# From here on rollouts follow one another on a loaded machine: a roomier deadline.
DEADLINE=120
stack_operator_start a --progress-deadline $DEADLINE > "$T/port-a"
restored() { [ "$(kubectl -n $OPNS get cm policy-scheduler-config-$R -o jsonpath='{.data.policy\.cfg}')" = "$policy2" ]; }
wait_for "the restarted operator recomputes its hash from the data and restores it" 20 restored
check_eq "revision $R still serves, nothing rolled" "$R $R" "$(revision) $(newest_revision)"
# Five edits of the Deployment: five repairs (a sixth if two edits raced one pass), not a
# loop fighting what the API server defaults or omits.
check_match "the Deployment was put back once per hand edit, no more" '^[56]$' \
  "$(grep -c 'put back hand edits' "$CLUSTER_DIR/logs/operator-a.log")"

# --- one status write per change of state ---------------------------------------------------
before=$(status_writes)
stack_put_policy "$(stack_weight_policy 2)"
R=$((R + 1))
rolls_out "a policy change rolls out as revision $R" "$R"
check "... and the operator has run a whole pass since (a late write would be in by now)" stack_operator_has_run_since_now a
check_match "the rollout wrote the status at most twice (started, complete)" '^[12]$' "$(( $(status_writes) - before ))"

# --- failures to apply show on status ------------------------------------------------------
used=$(kubectl -n $OPNS get configmaps --no-headers | wc -l)
kubectl -n $OPNS create quota revisions --hard=configmaps="$used" >/dev/null
wait_for "a quota on ConfigMaps is in force" 15 bash -c "[ -n \"\$(kubectl -n $OPNS get quota revisions -o jsonpath='{.status.used.configmaps}')\" ]"
stack_put_policy "$(stack_weight_policy 3)"
wait_for "a revision the quota refuses shows as Degraded=True reason ApplyFailed" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"Degraded\")].reason}")" = ApplyFailed ]'
check_match "... with the API's message" 'exceeded quota' "$(condition Degraded message)"
check_eq "... and revision $R keeps serving" "$R" "$(revision)"
kubectl -n $OPNS delete quota revisions >/dev/null
R=$((R + 1))
rolls_out "without the quota the revision is written and rolls out (revision $R)" "$R"
check_eq "... and Degraded clears" "False AsExpected" "$(condition Degraded status) $(condition Degraded reason)"

# A valid policy whose revision does not fit: 900 labelsPresence predicates with long names;
# the effective lists alone are more than the 256 KiB annotations of an object may hold.
python3 - "$T/big.cfg" <<'PY'
import json, sys
preds = [{"name": "GeneralPredicates"}]
for i in range(900):
    preds.append({"name": "has-label-%04d-" % i + "x" * 300,
                  "argument": {"labelsPresence": {"labels": ["l%d" % i], "presence": True}}})
json.dump({"kind": "Policy", "apiVersion": "v1", "predicates": preds, "priorities": []}, open(sys.argv[1], "w"))
PY
# Replaced, not applied: kubectl apply would keep a copy in an annotation, which cannot
# hold it either.
kubectl create configmap -n openshift-config scheduler-policy --from-file=policy.cfg="$T/big.cfg" \
  --dry-run=client -o yaml | kubectl replace --request-timeout=10s -f - >/dev/null
wait_for "a policy whose revision cannot fit is rejected" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].status}")" = False ]'
check_match "... naming the limit" '256 KiB|1 MiB' "$(condition PolicyValid message)"
check_eq "... no revision was written, revision $R keeps serving" "$R $R" "$(newest_revision) $(revision)"
stack_put_policy "$(stack_weight_policy 2)"
wait_for "a policy equal to an earlier revision's is accepted again" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].status}")" = True ]'
R=$((R + 1))
rolls_out "... and rolls out (revision $R)" "$R"

# --- spec.defaultNodeSelector is validated --------------------------------------------------
kubectl patch scheduler cluster --type=merge -p '{"spec":{"defaultNodeSelector":"region=east,zone"}}' >/dev/null
wait_for "an unparsable defaultNodeSelector is rejected: PolicyValid=False" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].status}")" = False ]'
check_match "... the message names spec.defaultNodeSelector" 'defaultNodeSelector' "$(condition PolicyValid message)"
check_eq "... no revision was written, revision $R keeps serving" "$R $R" "$(newest_revision) $(revision)"
kubectl patch scheduler cluster --type=merge -p '{"spec":{"defaultNodeSelector":"region=east"}}' >/dev/null
R=$((R + 1))
rolls_out "a valid defaultNodeSelector rolls out (revision $R)" "$R"
check_match "... and is in the rendered settings" 'defaultNodeSelector: "region=east"' \
  "$(kubectl -n $OPNS get cm policy-scheduler-config-$R -o jsonpath='{.data.policy-scheduler\.yaml}')"

# --- the Scheduler deleted -------------------------------------------------------------------
kubectl delete scheduler cluster >/dev/null
wait_for "a deleted Scheduler is recreated" 30 kubectl get scheduler cluster
check_eq "... with an empty spec" "{}" "$(sched '{.spec}')"
wait_for "... and a Warning event names the policy that was lost" 20 \
  event_matches 'SchedulerRecreated: .*scheduler-policy'
check_match "... and the node selector" 'region=east' "$(events | grep SchedulerRecreated)"
finish
