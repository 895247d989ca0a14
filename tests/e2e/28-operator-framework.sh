#!/usr/bin/env bash
# scheduler-operator with the Scheduler Framework's configuration, on the real local control
# plane with nodesim nodes and kubectl as the administrator:
#   - spec.profile rendered as OpenShift 4.7-4.9's plugin sets (--profiles-as-plugins): each
#     profile's config.yaml has the profiles section of OpenShift's asset
#     (tests/data/openshift-profiles), and the scheduler places pods accordingly
#     (HighNodeUtilization packs onto the fullest feasible node; NoScoring spreads at random,
#     so 100 pods use every feasible node);
#   - a KubeSchedulerConfiguration source (SchedulerPolicyOperator spec.schedulerConfig) with
#     two profiles rolls out, pods of both scheduler names are placed, status.plugins lists
#     both profiles; broken sources (an unknown plugin, a wrong argument type, a trailing
#     comma, a duplicate profile name, clientConnection set) are rejected with line:column
#     and the running revision keeps scheduling;
#   - switching to a Policy, back to the source, and to a profile;
#   - kubectl scheduler-policy diff between framework revisions (two profiles, a profile
#     and the source) and between a Policy revision and the source;
#   - disturbance: the source ConfigMap deleted; the largest source (exactly 1 MiB) read
#     whole and accepted, one byte more refused; the rendered framework revision and its
#     Deployment (a --policy-config-file added) edited by hand and put back;
#   - kubectl scheduler-policy migrate --dry-run (with its report that no pod's decision
#     differs), then migrate, on the documented default
#     policy: the same fixed workload lands on the same nodes before and after;
#   - a first install with an invalid source: Degraded with line:column, nothing of it
#     rendered, the profile's plugin set schedules meanwhile, the source fixed rolls out.
# The scheduler the Deployment runs is STACK_SCHEDULER (tests/lib/stack.sh): the bundled
# policy-scheduler by default; STACK_SCHEDULER=upstream runs the same script on kube-scheduler
# v1.20, which reads the same rendered files. Runs under tools/with-cluster.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || exit 1
. tests/lib/e2e.sh
. tests/lib/stack.sh
T=$(mktemp -d)
OPNS=openshift-kube-scheduler
cleanup() {
  for p in "$CLUSTER_DIR"/pids/operator-*.pid; do [ -e "$p" ] && stack_stop_pid "$(basename "$p" .pid)"; done
  stack_nodesim_stop
  kubectl delete namespace fw --ignore-not-found --wait=false >/dev/null 2>&1
  kubectl delete schedulerpolicyoperator cluster --ignore-not-found --wait=false >/dev/null 2>&1
  # the operator scripts after this one on the plane start from nothing: no ClusterOperator
  # CRD, source ConfigMap, revision or scheduler pod of this script's
  stack_reset_operator_state >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

sched() { kubectl get scheduler cluster -o jsonpath="$1"; }
revision() { sched '{.status.revision}'; }
condition() { sched "{.status.conditions[?(@.type==\"$1\")].$2}"; }
settled() { [ "$(condition Progressing status)" = False ] && [ "$(condition Available status)" = True ]; }
serving() { settled && [ "$(revision)" = "$1" ]; }
newest_revision() {
  kubectl -n $OPNS get configmaps -l app=policy-scheduler -o jsonpath='{range .items[*]}{.metadata.labels.revision}{"\n"}{end}' |
    sort -n | tail -1
}
# The newest revision is serving and it is newer than $1.
rolled_past() { local n; n=$(newest_revision); [ "$n" -gt "$1" ] && serving "$n"; }
config_of() { kubectl -n $OPNS get configmap "policy-scheduler-config-$1" -o jsonpath='{.data.config\.yaml}'; }
# What follows "profiles:" in a file (the asset's section); empty when there is none.
profiles_section() { sed -n '/^profiles:/,$p'; }
put_source() { # FILE: create or replace ConfigMap openshift-config/scheduler-config
  kubectl create configmap -n openshift-config scheduler-config --from-file=config.yaml="$1" \
    --dry-run=client -o yaml | kubectl apply --request-timeout=10s -f - >/dev/null
}
put_policy() {
  kubectl create configmap -n openshift-config scheduler-policy --from-file=policy.cfg="$1" \
    --dry-run=client -o yaml | kubectl apply --request-timeout=10s -f - >/dev/null
}
use_source() { # NAME ("" to unset)
  if [ -n "$1" ]; then
    kubectl patch schedulerpolicyoperator cluster --type merge -p "{\"spec\":{\"schedulerConfig\":{\"name\":\"$1\"}}}" >/dev/null
  else
    kubectl patch schedulerpolicyoperator cluster --type json -p '[{"op":"remove","path":"/spec/schedulerConfig"}]' >/dev/null
  fi
}
# Pods in namespace fw: N pods named PREFIX-i asking CPU each, for SCHEDULER.
make_pods() { # PREFIX N CPU [SCHEDULER]
  local i
  for i in $(seq 1 "$2"); do
    cat <<Y
---
apiVersion: v1
kind: Pod
metadata: {name: $1-$i, namespace: fw, labels: {set: $1}}
spec:
  schedulerName: ${4:-default-scheduler}
  containers: [{name: c, image: pause, resources: {requests: {cpu: "$3", memory: 10Mi}}}]
Y
  done | kubectl apply -f - >/dev/null
}
placed() { # SET N: all N pods of the set have a node
  [ "$(kubectl -n fw get pods -l set="$1" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c .)" = "$2" ]
}
nodes_of() { kubectl -n fw get pods -l set="$1" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort | uniq -c | awk '{print $2"="$1}' | xargs; }
# one DeleteCollection request (kubectl deletes one pod a request, 5 a second)
clear_pods() { api DELETE /api/v1/namespaces/fw/pods -H 'Content-Type: application/json' --data '{"gracePeriodSeconds": 0}' >/dev/null 2>&1; for _ in $(seq 1 50); do [ -z "$(kubectl -n fw get pods -o name)" ] && return 0; sleep 0.2; done; return 1; }

reset_operator_state() {
  kubectl delete scheduler cluster --ignore-not-found --wait=true >/dev/null &&
  kubectl delete schedulerpolicyoperator cluster --ignore-not-found --wait=true >/dev/null &&
  kubectl -n $OPNS delete deployment policy-scheduler --ignore-not-found >/dev/null &&
  kubectl -n $OPNS delete configmap -l app=policy-scheduler >/dev/null &&
  kubectl -n $OPNS delete pods -l app=policy-scheduler --grace-period=0 --force >/dev/null 2>&1
  kubectl -n openshift-config delete configmap scheduler-policy scheduler-config --ignore-not-found >/dev/null
}

check "CRD, namespaces and RBAC install" stack_install
check "no Scheduler, revision or source is left from earlier scripts" reset_operator_state
kubectl create namespace fw >/dev/null 2>&1
check "nodesim brings up three Ready nodes" stack_nodesim_start
check "the ClusterOperator CRD installs (for the Upgradeable check)" bash -c \
  "kubectl apply -f tests/data/crds/clusteroperators.config.openshift.io.yaml >/dev/null &&
   kubectl wait --for condition=Established --timeout=30s crd/clusteroperators.config.openshift.io >/dev/null"
# node-0 is the control plane (tainted): node-1 and node-2 take the workload.
kubectl apply -f - >/dev/null <<'Y'
apiVersion: operator.scheduler-policy.io/v1
kind: SchedulerPolicyOperator
metadata: {name: cluster}
spec: {progressDeadlineSeconds: 120}
Y
# Upstream kube-scheduler reports its Scheduled Events under the host's name, which the
# coexistence guard cannot tell from another scheduler's: sharing upstream's Lease turns the
# guard off (nothing else schedules on this plane).
shared=false
[ "${STACK_SCHEDULER:-bundled}" = upstream ] && shared=true
stack_operator_start a --profiles-as-plugins true --scheduler-shared-lease $shared > /dev/null
wait_for "the default profile rolls out as revision 1" 150 serving 1

# --- profiles as OpenShift renders them -----------------------------------------------------
check_eq "\"\" renders LowNodeUtilization: a profile with no plugin section, as OpenShift's asset" \
  "$(printf 'profiles:\n  - schedulerName: default-scheduler')" "$(config_of 1 | profiles_section)"
check "... and no policy.cfg" bash -c "[ -z \"\$(kubectl -n $OPNS get configmap policy-scheduler-config-1 -o jsonpath='{.data.policy\.cfg}')\" ]"
n=1
for p in HighNodeUtilization NoScoring LowNodeUtilization; do
  kubectl patch scheduler cluster --type merge -p "{\"spec\":{\"profile\":\"$p\"}}" >/dev/null
  wait_for "profile $p rolls out" 150 rolled_past $n
  n=$(newest_revision)
  [ "$p" = HighNodeUtilization ] && high=$n
  if [ "$p" = LowNodeUtilization ]; then
    check_eq "... its profiles section is OpenShift's (the default plugins)" \
      "$(printf 'profiles:\n  - schedulerName: default-scheduler')" "$(config_of "$n" | profiles_section)"
  else
    check_eq "... its profiles section is OpenShift's asset, byte for byte" \
      "$(profiles_section < tests/data/openshift-profiles/$p.yaml)" "$(config_of "$n" | profiles_section)"
  fi
  case $p in
  HighNodeUtilization)
    make_pods pack 6 200m
    wait_for "... 6 pods are placed" 60 placed pack 6
    check_match "... all on one node: the fullest feasible one" '^node-[12]=6$' "$(nodes_of pack)"
    clear_pods ;;
  NoScoring)
    make_pods spread 100 10m
    wait_for "... 100 pods are placed" 120 placed spread 100
    check_match "... every feasible node is used (no score: random among all)" '^node-1=[0-9]+ node-2=[0-9]+$' \
      "$(nodes_of spread)"
    clear_pods ;;
  esac
done

# --- a KubeSchedulerConfiguration source with two profiles ----------------------------------
cat > "$T/two.yaml" <<'Y'
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 5
profiles:
- schedulerName: default-scheduler
- schedulerName: packing-scheduler
  plugins:
    score:
      disabled:
      - name: NodeResourcesLeastAllocated
      - name: NodeResourcesBalancedAllocation
      enabled:
      - name: NodeResourcesMostAllocated
        weight: 5
Y
put_source "$T/two.yaml"
before=$(newest_revision)
use_source scheduler-config
wait_for "the source with two profiles rolls out" 150 rolled_past "$before"
good=$(newest_revision)
check_eq "SchedulerConfigValid is True" "True" "$(condition SchedulerConfigValid status)"
check_eq "status.policy names the source, and the profile it overrides" "scheduler-config LowNodeUtilization" \
  "$(sched '{.status.policy.schedulerConfig} {.status.policy.ignoredProfile}')"
check_eq "status.plugins lists both profiles" "default-scheduler packing-scheduler" \
  "$(sched '{.status.plugins[*].schedulerName}')"
check_match "... with packing-scheduler's score plugins and weights" 'NodeResourcesMostAllocated.*"weight":5' \
  "$(sched '{.status.plugins[?(@.schedulerName=="packing-scheduler")].extensionPoints.score}')"
check "the revision has no policy.cfg and the Deployment no --policy-config-file" bash -c \
  "! kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='{.spec.template.spec.containers[0].command}' | grep -q policy-config-file"
export PATH="$BIN_DIR:$PATH"
out=$(kubectl scheduler-policy diff 1 "$high"); rc=$?
check_eq "diff of two profiles' revisions (1, $high) exits 1: they differ" 1 "$rc"
check_eq "... in HighNodeUtilization's three score plugins, nothing else" "--- revision 1 (profile/LowNodeUtilization)
+++ revision $high (profile/HighNodeUtilization)
profile default-scheduler:
  score:
    - NodeResourcesBalancedAllocation weight 1
    - NodeResourcesLeastAllocated weight 1
    + NodeResourcesMostAllocated weight 5" "$out"
out=$(kubectl scheduler-policy diff 1 "$good"); rc=$?
check_eq "diff of the profile's revision against the source's ($good) exits 1" 1 "$rc"
check_match "... the source adds packing-scheduler, with its score plugins" \
  $'\n\\+ profile packing-scheduler:\n.*\n    score: [^\n]*NodeResourcesMostAllocated \\(5\\)\n' "$out"
check_match "... and scores every node, with a shorter maximum backoff" \
  $'~ percentageOfNodesToScore [0-9]+ -> 100\n~ podMaxBackoffSeconds 10 -> 5' "$out"
check "diff $good $good: no difference (exit 0)" kubectl scheduler-policy diff "$good" "$good"
make_pods a 3 100m default-scheduler
make_pods b 3 100m packing-scheduler
wait_for "pods of both scheduler names are placed" 60 bash -c "$(declare -f placed); placed a 3 && placed b 3"
check_match "... packing-scheduler's pods share one node" '^node-[12]=3$' "$(nodes_of b)"
clear_pods

# --- broken sources -------------------------------------------------------------------------
broken() { # DESCRIPTION FILE WANT-LINE:COL [RULE]
  put_source "$2"
  wait_for "$1: rejected" 30 bash -c "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type==\"SchedulerConfigValid\")].status}')\" = False ]"
  local msg; msg=$(condition SchedulerConfigValid message)
  check_match "... the message names config.yaml:$3" "config\\.yaml:$3" "$msg"
  [ -z "${4:-}" ] || check_match "... and the rule $4" "\\[$4\\]" "$msg"
  check_eq "... no revision was written, revision $good serves" "$good $good" "$(newest_revision) $(revision)"
  make_pods keep 1 50m
  wait_for "... the running revision keeps scheduling" 30 placed keep 1
  clear_pods
  put_source "$T/two.yaml"
  wait_for "... the good source is accepted again" 30 bash -c "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type==\"SchedulerConfigValid\")].status}')\" = True ]"
}
sed 's/NodeResourcesMostAllocated/NodeResourcesMostAlocated/' "$T/two.yaml" > "$T/b1.yaml"
broken "an unknown plugin" "$T/b1.yaml" '15:'
cat "$T/two.yaml" > "$T/b2.yaml"; printf '  pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeight: heavy\n' >> "$T/b2.yaml"
broken "a wrong argument type" "$T/b2.yaml" '20:'
printf '{"apiVersion": "kubescheduler.config.k8s.io/v1beta1",\n "kind": "KubeSchedulerConfiguration",\n "profiles": [{"schedulerName": "default-scheduler"},]}\n' > "$T/b3.json"
broken "a trailing comma" "$T/b3.json" '3:'
sed 's/packing-scheduler/default-scheduler/' "$T/two.yaml" > "$T/b4.yaml"
broken "a duplicate profile name" "$T/b4.yaml" '8:'
{ cat "$T/two.yaml"; printf 'clientConnection:\n  qps: 500\n'; } > "$T/b5.yaml"
broken "clientConnection set" "$T/b5.yaml" '17:1:' operator-owned-field

# --- disturbance ----------------------------------------------------------------------------
kubectl -n openshift-config delete configmap scheduler-config >/dev/null
wait_for "the source ConfigMap deleted: SchedulerConfigNotFound" 30 bash -c \
  "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type==\"SchedulerConfigValid\")].reason}')\" = SchedulerConfigNotFound ]"
check_eq "... revision $good keeps serving" "$good $good" "$(newest_revision) $(revision)"
put_source "$T/two.yaml"
wait_for "... recreated: accepted, the same revision" 30 bash -c \
  "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type==\"SchedulerConfigValid\")].status}')\" = True ]"
check_eq "... no new revision for the same content" "$good" "$(newest_revision)"
# The largest source accepted: config.yaml of exactly 1 MiB, what the API server lets a
# ConfigMap's data hold and the operator's own bound (mostly comments: read whole, accepted,
# and the same revision, since comments are not part of what runs); one byte more is refused.
sized() { # FILE BYTES: two.yaml padded with comment lines to exactly BYTES
  python3 - "$T/two.yaml" "$1" "$2" <<'PY'
import sys
base = open(sys.argv[1]).read()
want = int(sys.argv[3])
pad = want - len(base)
lines = []
while pad > 0:
    n = min(1000, pad)
    lines.append("#" * (n - 1) + "\n" if n > 1 else "\n")
    pad -= n
open(sys.argv[2], "w").write(base + "".join(lines))
PY
}
replace_source() { # FILE (replace, not apply: apply copies it into an annotation, which holds 256 KiB)
  kubectl create configmap -n openshift-config scheduler-config --from-file=config.yaml="$1" \
    --dry-run=client -o yaml | kubectl replace -f - 2>&1
}
sized "$T/over.yaml" 1048577
sized "$T/large.yaml" 1048576
sha_good=$(sched '{.status.policy.sha256}')
check_match "a source one byte over 1 MiB (1048577 bytes) is refused by the API server" 'Too long|too long' \
  "$(replace_source "$T/over.yaml")"
sleep 2
check_eq "... nothing changes: the same source, revision $good serves" "$sha_good $good $good" \
  "$(sched '{.status.policy.sha256}') $(newest_revision) $(revision)"
check_eq "the largest source, exactly 1048576 bytes, is stored" "1048576" \
  "$(replace_source "$T/large.yaml" >/dev/null; kubectl -n openshift-config get configmap scheduler-config -o jsonpath='{.data.config\.yaml}' | wc -c)"
wait_for "... read whole and accepted" 30 bash -c \
  "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.policy.sha256}')\" = $(sha256sum "$T/large.yaml" | cut -c1-64) ]"
check_eq "... SchedulerConfigValid True, the same revision $good" "True $good $good" \
  "$(condition SchedulerConfigValid status) $(newest_revision) $(revision)"
put_source "$T/two.yaml"
kubectl -n $OPNS get configmap "policy-scheduler-config-$good" -o json |
  python3 -c 'import json,sys; o=json.load(sys.stdin); o["data"]["config.yaml"]="profiles: []\n"; [o["metadata"].pop(k, None) for k in ("resourceVersion", "uid", "creationTimestamp")]; print(json.dumps(o))' > "$T/edited.json"
# The ConfigMap is immutable: a hand edit is a delete and a create. With the operator running
# it may put the revision back in between, and kubectl replace --force then polls its 5-minute
# default for the name to be gone (a 301 s stall in CI). The operator is stopped meanwhile.
edit_revision() {
  kubectl -n $OPNS delete configmap "policy-scheduler-config-$good" >/dev/null &&
    kubectl create -f "$T/edited.json" >/dev/null &&
    [ "$(kubectl -n $OPNS get configmap "policy-scheduler-config-$good" -o jsonpath='{.data.config\.yaml}')" = "profiles: []" ]
}
stack_stop_pid operator-a
setup "revision $good's ConfigMap is edited by hand" edit_revision
stack_operator_start a --profiles-as-plugins true --scheduler-shared-lease $shared > /dev/null
wait_for "... the restarted operator puts it back" 30 bash -c \
  "kubectl -n $OPNS get configmap policy-scheduler-config-$good -o jsonpath='{.data.config\.yaml}' | grep -q packing-scheduler"
# The Deployment of a framework revision passes no --policy-config-file: one added by hand
# would make the scheduler look for a policy.cfg the revision does not have.
kubectl -n $OPNS patch deployment policy-scheduler --type json \
  -p '[{"op":"add","path":"/spec/template/spec/containers/0/command/-","value":"--policy-config-file=/etc/kubernetes/policy-scheduler/policy.cfg"}]' >/dev/null
wait_for "a --policy-config-file added by hand to the framework revision's Deployment is removed" 30 bash -c \
  "! kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='{.spec.template.spec.containers[0].command}' | grep -q policy-config-file"
wait_for "... with an Event naming the command" 10 bash -c \
  "kubectl -n openshift-kube-scheduler-operator get events --field-selector involvedObject.kind=Scheduler -o jsonpath='{range .items[*]}{.reason}: {.message}{\"\\n\"}{end}' | grep -qE 'DriftReverted: .*command'"
wait_for "... and revision $good serves again" 90 serving "$good"

# --- to a Policy and back -------------------------------------------------------------------
put_policy deploy/policy.cfg
kubectl patch scheduler cluster --type merge -p '{"spec":{"policy":{"name":"scheduler-policy"}}}' >/dev/null
wait_for "a Policy wins over the source: it rolls out" 150 rolled_past "$good"
pol=$(newest_revision)
out=$(kubectl scheduler-policy diff "$pol" "$good"); rc=$?
check_eq "diff of the Policy's revision ($pol) against the source's exits 1" 1 "$rc"
check_match "... the Policy is compared as its v1beta1 translation" \
  "^# revision $pol \\(configmap/scheduler-policy resourceVersion [0-9]+\\): its Policy compared as the framework configuration v1.20 builds from it" "$out"
check_match "... whose scores differ from the defaults" $'\n  score:\n' "$out"
check_match "... and the source adds packing-scheduler" $'\n\\+ profile packing-scheduler:\n' "$out"
check_eq "... status names the ignored source, SchedulerConfigValid NotInUse" "scheduler-config NotInUse" \
  "$(sched '{.status.policy.ignoredSchedulerConfig}') $(condition SchedulerConfigValid reason)"
kubectl patch scheduler cluster --type json -p '[{"op":"remove","path":"/spec/policy"}]' >/dev/null
wait_for "the Policy unset: the source serves again" 150 bash -c \
  "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.policy.schedulerConfig}')\" = scheduler-config ] && [ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.revision}')\" != $pol ]"
use_source ""
wait_for "the source unset: the profile serves" 150 bash -c \
  "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.policy.profile}')\" = LowNodeUtilization ]"

# --- migrate on the documented default policy -----------------------------------------------
kubectl -n openshift-config delete configmap scheduler-config --ignore-not-found >/dev/null
kubectl patch scheduler cluster --type merge -p '{"spec":{"policy":{"name":"scheduler-policy"}}}' >/dev/null
wait_for "the documented policy serves" 150 bash -c \
  "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.policy.configMap}')\" = scheduler-policy ] && $(declare -f settled condition sched); settled"
# A fixed workload without ties: a ballast on node-1, then pods one at a time.
workload() { # PREFIX -> "pod=node ..." in creation order
  local i
  kubectl apply -f - >/dev/null <<Y
apiVersion: v1
kind: Pod
metadata: {name: $1-ballast, namespace: fw, labels: {set: $1-ballast}}
spec: {nodeName: node-1, containers: [{name: c, image: pause, resources: {requests: {cpu: 550m, memory: 300Mi}}}]}
Y
  for i in 1 2 3 4 5 6; do
    make_pods "$1-$i" 1 "$((200 + 70 * i))m"
    wait_for "... $1 pod $i placed" 30 placed "$1-$i" 1 >/dev/null
    echo -n "$i=$(kubectl -n fw get pod "$1-$i-1" -o jsonpath='{.spec.nodeName}') "
  done
}
before=$(workload w1)
echo "# placements under the Policy: $before"
export PATH="$BIN_DIR:$PATH"
kubectl scheduler-policy migrate --dry-run > "$T/dry.txt" 2> "$T/dry.err"
# a v1.20 plane reads no v1: migrate writes v1beta1, v1.20's own translation of the Policy
check "migrate says on stderr that no pod's decision differs (the workload running, decided as simulate decides)" \
  bash -c 'grep -q "^No pod'"'"'s decision differs between configmap/scheduler-policy:policy.cfg (v1.20, as the bundled scheduler runs it) and the migrated file (kubescheduler.config.k8s.io/v1beta1, v1.20'"'"'s plugins) ([1-9][0-9]* running" "$1" || { cat "$1"; false; }' _ "$T/dry.err"
kubectl scheduler-policy migrate --dry-run --api-version=v1 > /dev/null 2> "$T/dry-v1.err"
check "... and for the v1 file (1.32's plugins) it reports on the same pods" \
  bash -c 'grep -Eq "^(No pod|Pods whose decision differs).*kubescheduler.config.k8s.io/v1, 1.32'"'"'s plugins" "$1" || { cat "$1"; false; }' _ "$T/dry-v1.err"
sed 's/^/# v1: /' "$T/dry-v1.err"
clear_pods
check "migrate --dry-run prints the diff" grep -q '^+  "kind": "KubeSchedulerConfiguration",$' "$T/dry.txt"
check "... and the switch" grep -q 'Scheduler/cluster spec.policy.name: scheduler-policy -> (unset)' "$T/dry.txt"
check "... and writes nothing" bash -c "! kubectl -n openshift-config get configmap scheduler-config >/dev/null 2>&1 && [ \"\$(kubectl get scheduler cluster -o jsonpath='{.spec.policy.name}')\" = scheduler-policy ]"
pol=$(newest_revision)
check "migrate writes the source and switches" kubectl scheduler-policy migrate
wait_for "... the translation rolls out from the source" 150 bash -c \
  "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.policy.schedulerConfig}')\" = scheduler-config ] && $(declare -f rolled_past newest_revision settled serving revision condition sched); OPNS=$OPNS rolled_past $pol"
after=$(workload w2)
echo "# placements under the translation: $after"
check_eq "the same workload lands on the same nodes" "$before" "$after"
msg=$(kubectl get clusteroperator scheduler-policy -o jsonpath='{.status.conditions[?(@.type=="Upgradeable")].status}' 2>/dev/null)
check_eq "no legacy Policy in use any more: Upgradeable is True" "True" "$msg"

# --- first install with an invalid source ---------------------------------------------------
# Nothing of the operator's is left (no revision, no Deployment); the source it is told to use
# names an unknown plugin. It comes up Degraded with the line and column, renders nothing of
# the source, a scheduler runs anyway (the profile's plugin set) and schedules; the source
# fixed rolls out.
stack_stop_pid operator-a
setup "the operator's state is removed" stack_reset_operator_state
put_source "$T/b1.yaml"
kubectl apply -f - >/dev/null <<'Y'
apiVersion: operator.scheduler-policy.io/v1
kind: SchedulerPolicyOperator
metadata: {name: cluster}
spec: {progressDeadlineSeconds: 120, schedulerConfig: {name: scheduler-config}}
Y
stack_operator_start a --profiles-as-plugins true --scheduler-shared-lease $shared > /dev/null
wait_for "first install with an invalid source: SchedulerConfigValid=False" 60 bash -c \
  "[ \"\$(kubectl get scheduler cluster -o jsonpath='{.status.conditions[?(@.type==\"SchedulerConfigValid\")].status}')\" = False ]"
check_eq "... Degraded=True, reason InvalidSchedulerConfig" "True InvalidSchedulerConfig" \
  "$(condition Degraded status) $(condition Degraded reason)"
check_match "... Degraded names config.yaml:15: and the plugin" 'config\.yaml:15:[0-9]+:.*NodeResourcesMostAlocated' \
  "$(condition Degraded message)"
wait_for "... a scheduler runs anyway: the profile's plugin set serves as revision 1" 150 serving 1
check_eq "... the only revision, from the profile" "1 LowNodeUtilization" \
  "$(newest_revision) $(sched '{.status.policy.profile}')"
check "... nothing of the source is rendered" bash -c \
  "! kubectl -n $OPNS get configmap policy-scheduler-config-1 -o jsonpath='{.data}' | grep -qE 'NodeResourcesMostAlocated|packing-scheduler'"
make_pods keep 1 50m
wait_for "... and it schedules" 60 placed keep 1
clear_pods
put_source "$T/two.yaml"
wait_for "the source fixed rolls out" 150 rolled_past 1
check_eq "... SchedulerConfigValid True, Degraded False" "True False" \
  "$(condition SchedulerConfigValid status) $(condition Degraded status)"
check_eq "... status.plugins lists both profiles" "default-scheduler packing-scheduler" \
  "$(sched '{.status.plugins[*].schedulerName}')"
make_pods b 2 100m packing-scheduler
wait_for "... packing-scheduler's pods are placed" 60 placed b 2
finish
