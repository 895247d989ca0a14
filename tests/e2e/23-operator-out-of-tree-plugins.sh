#!/usr/bin/env bash
# scheduler-operator rolling out a scheduler whose profile uses out-of-tree plugins shipped in
# its image, on the real local control plane with nodesim nodes (nodesim runs the scheduler
# image as the local policy-scheduler, so the image's plugin directory is a local one here:
# root-owned, 0755, the example plugins copied in with install -m 0755):
#   - start-up: a declaration without --scheduler-plugin-dir, an in-tree plugin's name, an
#     unknown extension point or a duplicate stops the operator with the reason (exit 2);
#   - the operator started with --scheduler-plugin-dir and the declarations
#     pair-anti-affinity=filter, node-label-score=score (and rack-guard=filter, which the
#     directory does not hold); a KubeSchedulerConfiguration source (spec.schedulerConfig)
#     whose profile enables the two shipped plugins with pluginConfig args rolls out and is
#     Available, the scheduler runs with --plugin-dir, status.plugins lists the plugins;
#   - pods land where the plugins say, hand-computed: node-label-score (rack-score x 2:
#     node-2 20, node-1 6; every other score plugin disabled) picks node-2, and
#     pair-anti-affinity keeps a shard's master apart from its other master and replica, so
#     the third conflicting pod stays unschedulable with the plugin's reason;
#   - a source naming an undeclared plugin: refused (SchedulerConfigValid=False, the message
#     naming the plugin, the declared set and the directory), no revision, the running one
#     keeps scheduling;
#   - a source enabling rack-guard, declared but missing from the directory: the revision's
#     scheduler refuses to start, its pod never becomes ready, past --progress-deadline the
#     operator rolls back, reports it, and the previous revision keeps placing pods by the
#     plugins (the deadline is short: a SchedulerPolicyOperator spec.progressDeadlineSeconds of
#     12 s, set before this step); kubectl scheduler-policy diff compares the two revisions'
#     out-of-tree plugins like in-tree ones.
# With ABUSE_VALGRIND=1 the operator runs under valgrind's memcheck (tests/lib/e2e.sh).
# Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/stack-script.sh"
OPNS=openshift-kube-scheduler
BUILD=$(dirname "$BIN_DIR")
DEADLINE=12

cleanup() {
  stack_nodesim_stop
  kubectl delete namespace oot --ignore-not-found --wait=false >/dev/null 2>&1
  stack_reset_operator_state >/dev/null 2>&1
}

sched() { kubectl get scheduler cluster -o jsonpath="$1"; }
newest_revision() {
  kubectl -n $OPNS get configmaps -l app=policy-scheduler \
    -o jsonpath='{range .items[*]}{.metadata.labels.revision}{"\n"}{end}' | sort -n | tail -1
}
put_source() { # FILE: create or replace ConfigMap openshift-config/scheduler-config
  kubectl create configmap -n openshift-config scheduler-config --from-file=config.yaml="$1" \
    --dry-run=client -o yaml | kubectl apply --request-timeout=10s -f - >/dev/null
}
source_valid() { [ "$(condition SchedulerConfigValid)" = "$1" ]; }
# A pod of namespace oot with a shard and a role (the plugin's group and role labels).
make_pod() { # NAME SHARD ROLE
  kubectl apply -f - >/dev/null <<Y
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: oot, labels: {shard: "$2", role: "$3"}}
spec:
  containers: [{name: c, image: pause, resources: {requests: {cpu: 10m, memory: 10Mi}}}]
Y
}
node_of() { kubectl -n oot get pod "$1" -o jsonpath='{.spec.nodeName}'; }
bound() { [ -n "$(node_of "$1")" ]; }
unschedulable() {
  [ "$(kubectl -n oot get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')" = Unschedulable ]
}
place() { # NAME SHARD ROLE EXPECTED-NODE
  make_pod "$1" "$2" "$3"
  wait_for "$1 ($2/$3) is placed" 30 bound "$1" && check_eq "... on $4" "$4" "$(node_of "$1")"
}

# ---- start-up refusals --------------------------------------------------------------------
refused() { # WHAT NEEDLE ARGS...
  local what=$1 needle=$2 out rc; shift 2
  out=$("$BIN_DIR/scheduler-operator" --kubeconfig /nonexistent "$@" 2>&1); rc=$?
  check_eq "start-up: $what: refused (exit 2)" 2 "$rc"
  check_match "... saying why" "$needle" "$out"
}
refused "a declaration without a directory" \
  '--scheduler-plugin pair-anti-affinity is declared without --scheduler-plugin-dir' \
  --scheduler-plugin pair-anti-affinity=filter
refused "an in-tree plugin's name" '"NodeName" is an in-tree plugin' \
  --scheduler-plugin-dir /usr/lib/policy-scheduler/plugins --scheduler-plugin NodeName=filter
refused "an unknown point" 'unknown extension point "filtre"' \
  --scheduler-plugin-dir /usr/lib/policy-scheduler/plugins --scheduler-plugin pair-anti-affinity=filtre
refused "a point out-of-tree plugins cannot extend" 'at preFilter, filter, preScore and score only, not at bind' \
  --scheduler-plugin-dir /usr/lib/policy-scheduler/plugins --scheduler-plugin pair-anti-affinity=bind
refused "a duplicate" 'pair-anti-affinity is declared twice' \
  --scheduler-plugin-dir /usr/lib/policy-scheduler/plugins --scheduler-plugin pair-anti-affinity=filter \
  --scheduler-plugin pair-anti-affinity=preFilter

# ---- the stack ----------------------------------------------------------------------------
check "CRD, namespaces and RBAC install" stack_install
check "no Scheduler, revision or source is left from earlier scripts" stack_reset_operator_state
kubectl create namespace oot >/dev/null 2>&1
check "nodesim brings up three Ready nodes" stack_nodesim_start
# the score label: node-2 the highest (node-0 is the tainted control plane)
check "node-1 and node-2 get their rack scores" bash -c \
  "kubectl label node node-1 example.com/rack-score=3 --overwrite >/dev/null &&
   kubectl label node node-2 example.com/rack-score=10 --overwrite >/dev/null"

# The scheduler image's plugin directory: root-owned, not group/world-writable.
PLUGDIR="$T/image/usr/lib/policy-scheduler/plugins"
mkdir -p -m 0755 "$PLUGDIR"
chmod 0755 "$T/image" "$T/image/usr" "$T/image/usr/lib" "$T/image/usr/lib/policy-scheduler"
install -m 0755 "$BUILD"/plugins/*.so "$PLUGDIR/"
check_eq "the image's plugin directory holds the two examples" "node-label-score.so pair-anti-affinity.so" \
  "$(cd "$PLUGDIR" && echo *.so)"

PAIR='{"groupLabel": "shard", "roleLabel": "role", "conflicts": [["master", "master"], ["master", "replica"]]}'
SCORE='{"labels": [{"key": "example.com/rack-score", "weight": 2}]}'
source_with() { # FILTER-PLUGIN [ARGS]: the profile with FILTER-PLUGIN at filter, node-label-score at score
  cat <<Y
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 2
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled:
      - name: $1
    score:
      disabled:
      - name: "*"
      enabled:
      - name: node-label-score
        weight: 1
  pluginConfig:
  - name: $1
    args: ${2:-$PAIR}
  - name: node-label-score
    args: $SCORE
Y
}
source_with pair-anti-affinity > "$T/plugins.yaml"
put_source "$T/plugins.yaml"
kubectl apply -f - >/dev/null <<Y
apiVersion: operator.scheduler-policy.io/v1
kind: SchedulerPolicyOperator
metadata: {name: cluster}
spec: {schedulerConfig: {name: scheduler-config}}
Y
: > "$CLUSTER_DIR/logs/operator-oot.log"
stack_operator_start oot --scheduler-plugin-dir "$PLUGDIR" \
  --scheduler-plugin pair-anti-affinity=filter --scheduler-plugin node-label-score=score \
  --scheduler-plugin rack-guard=filter > /dev/null
wait_for "the source with the out-of-tree plugins rolls out as revision 1, Available" 90 serving 1
check_eq "SchedulerConfigValid is True" True "$(condition SchedulerConfigValid)"
check_match "the scheduler runs with --plugin-dir of the image" "\"--plugin-dir=$PLUGDIR\"" \
  "$(kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='{.spec.template.spec.containers[0].command}')"
check_match "status.plugins: pair-anti-affinity last at filter" ' pair-anti-affinity$' \
  "$(sched '{.status.plugins[0].extensionPoints.filter[*].name}')"
check_eq "... node-label-score alone at score" "node-label-score" \
  "$(sched '{.status.plugins[0].extensionPoints.score[*].name}')"
check_match "the revision's effective view lists them too" 'pair-anti-affinity.*node-label-score' \
  "$(kubectl -n $OPNS get configmap policy-scheduler-config-1 -o jsonpath='{.metadata.annotations.scheduler\.openshift\.io/effective}')"

# ---- placements (hand-computed; see the header) --------------------------------------------
place a-master a master node-2
place a-replica a replica node-1
place b-master b master node-2
make_pod a-master-2 a master
wait_for "a-master-2 (a/master) conflicts on both nodes: unschedulable" 30 unschedulable a-master-2
check_match "... for pair-anti-affinity's reasons" \
  'node\(s\) had a (master|replica) and this pod is a master of the same group' \
  "$(kubectl -n oot get pod a-master-2 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')"
kubectl -n oot delete pod a-master-2 --grace-period=0 --force >/dev/null 2>&1

# ---- an undeclared plugin ------------------------------------------------------------------
source_with zone-guard '{}' > "$T/undeclared.yaml"
put_source "$T/undeclared.yaml"
wait_for "a source naming undeclared zone-guard is refused" 30 source_valid False
check_match "... the message names it, the declared set and the directory" \
  "plugin \"zone-guard\" does not exist in kube-scheduler v1\\.20 nor among the out-of-tree plugins declared as shipped in $PLUGDIR \\(pair-anti-affinity, node-label-score, rack-guard\\)" \
  "$(condition SchedulerConfigValid message)"
check_eq "... Degraded" True "$(condition Degraded)"
check_eq "... no revision was written, revision 1 serves" "1 1" "$(newest_revision) $(revision)"
place b-replica b replica node-1

# ---- a declared plugin the image does not have ---------------------------------------------
# A short progress deadline from here on (not for the first rollout, which on a busy machine
# may take longer than it): the Deployment is rendered anew with it, its pods stay.
kubectl patch schedulerpolicyoperator cluster --type merge -p "{\"spec\":{\"progressDeadlineSeconds\":$DEADLINE}}" >/dev/null
wait_for "a ${DEADLINE}s progress deadline is applied to the Deployment" 30 bash -c \
  "[ \"\$(kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='{.spec.progressDeadlineSeconds}')\" = $DEADLINE ]"
check_eq "... revision 1 keeps serving" 1 "$(revision)"
source_with rack-guard '{"racks": 2}' > "$T/missing.yaml"
put_source "$T/missing.yaml"
wait_for "a source enabling declared rack-guard is accepted" 30 source_valid True
wait_for "... and rolls out as revision 2" 30 bash -c "[ \"\$(kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='{.spec.template.metadata.labels.revision}')\" = 2 ]"
rev2_failing() {
  local s
  s=$(kubectl -n $OPNS get pods -l app=policy-scheduler,revision=2 \
    -o jsonpath='{range .items[*]}{.status.containerStatuses[0].restartCount}{" "}{.status.containerStatuses[0].lastState.terminated.exitCode}{"\n"}{end}')
  [[ $s =~ ^[1-9][0-9]*\ [1-9] ]]
}
wait_for "... its scheduler refuses to start: the container exits non-zero and restarts" 30 rev2_failing
rev2_pod=$(kubectl -n $OPNS get pods -l app=policy-scheduler,revision=2 -o jsonpath='{.items[0].metadata.name}')
check_match "... its log (kubectl logs --previous) names the file looked for" \
  "plugin \"rack-guard\" does not exist in kube-scheduler v1\\.20 nor as an out-of-tree plugin $PLUGDIR/rack-guard\\.so" \
  "$(kubectl -n $OPNS logs --previous "$rev2_pod" 2>&1)"
rolled_back() { [ "$(condition Degraded reason)" = RolloutFailed ] && serving 1; }
wait_for "past the ${DEADLINE}s deadline the operator rolls back: revision 1 serves" $((DEADLINE + 30)) rolled_back
check_match "... and reports it" "revision 2 did not become available within ${DEADLINE}s.*revision 1" \
  "$(condition Degraded message)"
check_eq "... the Deployment runs revision 1 again" 1 \
  "$(kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='{.spec.template.metadata.labels.revision}')"
check_eq "... Available" True "$(condition Available)"
out=$(PATH="$BIN_DIR:$PATH" kubectl scheduler-policy diff 1 2 2>&1); rc=$?
check_eq "kubectl scheduler-policy diff 1 2 exits 1: they differ" 1 "$rc"
check_match "... in the filter plugin and its args, out-of-tree plugins compared as in-tree ones" \
  $'filter:\n    - pair-anti-affinity\n    \\+ rack-guard\n.*pluginConfig:\n    - pair-anti-affinity .*\n    \\+ rack-guard \\{"racks":2\\}' "$out"
# revision 1 still places by the plugins: shard c's master on the highest score, its replica apart
place c-master c master node-2
place c-replica c replica node-1

stack_stop_pid operator-oot
check_eq "no memory checker report in the operator's log, its exit's leak check included" "" \
  "$(memcheck_reports "$CLUSTER_DIR/logs/operator-oot.log")"
finish
