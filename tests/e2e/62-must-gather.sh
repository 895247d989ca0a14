#!/usr/bin/env bash
# tools/must-gather on the plane with the operator stack up (tests/lib/stack.sh): a new
# revision of the documented policy serving (after whatever earlier tests left), then a
# rejected policy whose
# extender carries a private key (keyData). The archive must hold the Scheduler, every
# revision, the Deployment, the scheduler pods with their logs, the operator's log, the
# events of the three namespaces, the validator's --effective output for the active and the
# rejected policy, and the ClusterOperator once its CRD exists; never a Secret's data nor
# the extender's key. First the redaction alone (must-gather --redact) with every encoding
# of a secret field: JSON (slash escaped or not), YAML quoted, flow, literal and folded
# block scalars, policies inside ConfigMaps, and log lines; then in the archive: the
# rejected policy's key written with an escaped slash, and the operator's log with the key
# in JSON, escaped JSON and a YAML block.
. "$(dirname "$0")/../lib/stack-script.sh"
export PATH="$BIN_DIR:$PATH"
cleanup() {
  stack_nodesim_stop
  kubectl -n openshift-kube-scheduler delete secret must-not-leak --ignore-not-found >/dev/null 2>&1
  kubectl delete crd clusteroperators.config.openshift.io --ignore-not-found >/dev/null 2>&1
  kubectl delete -f "$T/policy.yaml" --ignore-not-found >/dev/null 2>&1
}

serving_after() { settled && [ "$(revision)" -gt "$1" ]; }

# --- the redaction alone, every encoding of a secret field ----------------------------------
# Each case: a mode of must-gather --redact and an input holding SECRET-<case>; the output
# must not hold "SECRET-" and must read REDACTED.
redact_case() { # NAME MODE INPUT
  local out
  out=$(printf '%b' "$3" | tools/must-gather --redact "$2") || { echo "redact failed"; return 1; }
  case "$out" in *SECRET-*) echo "leaked: $out"; return 1 ;; esac
  case "$out" in *REDACTED*) ;; *) echo "no REDACTED in: $out"; return 1 ;; esac
}
while IFS='|' read -r name mode input; do
  [ -n "$name" ] && check "redaction: $name ($mode)" redact_case "$name" "$mode" "$input"
done <<'CASES'
JSON policy|text|{"extenders":[{"tlsConfig":{"keyData":"SECRET-json"}}]}
JSON with an escaped slash|text|{"extenders":[{"tlsConfig":{"keyData":"LS0t\\/SECRET-slash"}}]}
YAML double-quoted|text|extenders:\n- tlsConfig:\n    keyData: "LS0tSECRET-dq"\n
YAML single-quoted|text|extenders:\n- tlsConfig:\n    keyData: 'SECRET-sq'\n
YAML flow mapping|text|extenders:\n- tlsConfig: {keyData: SECRET-flow, certData: Y2VydA==}\n
YAML literal block scalar|text|extenders:\n- tlsConfig:\n    keyData: |\n      LS0tSECRET-block1\n      SECRET-block2\n    certData: Y2VydA==\n
YAML folded block scalar|text|extenders:\n- tlsConfig:\n    keyData: >-\n      SECRET-fold1\n      SECRET-fold2\n
YAML double-quoted over two lines|text|tlsConfig:\n  keyData: "SECRET-ml1\n    SECRET-ml2"\n
ConfigMap with a JSON policy.cfg|yaml|apiVersion: v1\nkind: ConfigMap\ndata:\n  policy.cfg: |\n    {"extenders":[{"tlsConfig":{"keyData":"AAAA\\/SECRET-cm"}}]}\n
ConfigMap with a YAML policy.cfg|yaml|apiVersion: v1\nkind: ConfigMap\ndata:\n  policy.cfg: |\n    extenders:\n    - tlsConfig:\n        keyData: >\n          SECRET-cmfold\n
a log line with JSON|log|I1127 12:00:00 policy {"tlsConfig":{"keyData":"SECRET-logjson\\/x"}} loaded\n
a log line with escaped JSON in a string|log|I1127 config="{\\"keyData\\":\\"SECRET-logesc\\"}" next\n
a log with a YAML block scalar|log|policy:\n  keyData: |\n    SECRET-logblock1\n    SECRET-logblock2\n  weight: 1\n
a log line with bare fields|log|E1127 token=SECRET-tok password: SECRET-pw keyData:SECRET-kd\n
a kubeconfig|yaml|apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user: {client-key-data: SECRET-ckd, token: SECRET-t}\n
CASES
check_eq "redaction keeps a policy without secrets as written" '{"kind" : "Policy", "apiVersion" : "v1"}' \
  "$(printf '%s' '{"kind" : "Policy", "apiVersion" : "v1"}' | tools/must-gather --redact text)"
check_eq "redaction keeps log lines without secrets, and fields that only start alike (tokens=5)" \
  'I1127 bound 5 pods, tokens=5 keyDataFile=/x' \
  "$(printf '%s' 'I1127 bound 5 pods, tokens=5 keyDataFile=/x' | tools/must-gather --redact log)"

setup "the stack installs (kubectl apply -k)" stack_install
setup "nodesim brings up three Ready nodes" stack_nodesim_start
stack_operator_start mg --progress-deadline 120 > /dev/null
wait_for "the operator has a serving revision" 150 settled
R0=$(revision)
# The documented policy with a weight no revision has had (not even a failed one, which
# the operator would not retry): a new revision.
W=$(( $(kubectl -n openshift-kube-scheduler get cm -l app=policy-scheduler -o jsonpath='{.items[*].metadata.labels.revision}' |
        tr ' ' '\n' | sort -n | tail -1) + 20 ))
sed "s/{\"name\" : \"LeastRequestedPriority\", \"weight\" : 1}/{\"name\" : \"LeastRequestedPriority\", \"weight\" : $W}/" \
  deploy/policy.cfg > "$T/good.cfg"
stack_put_policy "$T/good.cfg"
kubectl patch scheduler cluster --type=merge -p '{"spec":{"policy":{"name":"scheduler-policy"}}}' >/dev/null
wait_for "a new revision of the documented policy serves" 150 serving_after "$R0"
R=$(revision)
python3 - deploy/policy.cfg "$T/bad.cfg" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["predicates"].insert(2, {"name": "PodFitsResources"})
p["extenders"] = [{"urlPrefix": "https://extender.example:8443/", "filterVerb": "filter",
                   "tlsConfig": {"certData": "Y2VydA==", "keyData": "cHJpdmF0ZS1rZXktZGF0YQ/=="}}]
# as Go's encoder and many others write it: the slash escaped
open(sys.argv[2], "w").write(json.dumps(p, indent=1).replace("/==", "\\/=="))
PY
stack_put_policy "$T/bad.cfg"
wait_for "a policy with GeneralPredicates + PodFitsResources is rejected" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].status}")" = False ]'
kubectl -n openshift-kube-scheduler create secret generic must-not-leak --from-literal=password=super-secret-value >/dev/null

# the operator's log, plus lines that carry the key as logs do (JSON, escaped JSON, YAML)
cp "$CLUSTER_DIR/logs/operator-mg.log" "$T/operator-mg.log"
printf '%s\n' 'I1127 policy {"tlsConfig":{"keyData":"cHJpdmF0ZS1rZXktZGF0YQ\/=="}}' \
  'I1127 config="{\"keyData\":\"cHJpdmF0ZS1rZXktZGF0YQ==\"}"' 'tlsConfig:' '  keyData: |' \
  '    cHJpdmF0ZS1rZXktZGF0YQ==' >> "$T/operator-mg.log"
check "must-gather writes an archive" \
  bash -c "tools/must-gather --dest '$T/out' --operator-log '$T/operator-mg.log' > '$T/path'"
archive=$(cat "$T/path")
check_match "... one .tar.gz named for the operator and the time" 'scheduler-policy-must-gather-[0-9]{8}T[0-9]{6}Z\.tar\.gz$' "$archive"
mkdir -p "$T/x" && tar -C "$T/x" -xzf "$archive"
D=$(ls -d "$T"/x/scheduler-policy-must-gather-*)
has() { [ -s "$D/$1" ] || { echo "missing or empty: $1"; (cd "$D" && find . -type f | sort); return 1; }; }
check "the Scheduler" has cluster-scoped/schedulers/cluster.yaml
check_match "... with its status (the serving revision)" "revision: $R" "$(cat "$D/cluster-scoped/schedulers/cluster.yaml")"
check_match "... and the rejected source" "reason: InvalidPolicy" "$(cat "$D/cluster-scoped/schedulers/cluster.yaml")"
check_eq "every revision ConfigMap" "$(kubectl -n openshift-kube-scheduler get cm -l app=policy-scheduler -o name | sed 's#.*/##' | sort | xargs)" \
  "$(ls "$D/namespaces/openshift-kube-scheduler/configmaps" | sed 's/\.yaml$//' | sort | xargs)"
check "the policy ConfigMap the Scheduler names" has namespaces/openshift-config/configmaps/scheduler-policy.yaml
check "the policy-scheduler Deployment" has namespaces/openshift-kube-scheduler/deployments/policy-scheduler.yaml
pods=$(kubectl -n openshift-kube-scheduler get pods -o jsonpath='{.items[*].metadata.name}')
for p in $pods; do
  check "scheduler pod $p and its log" has "namespaces/openshift-kube-scheduler/pods/$p.log"
done
check_match "... the log shows what the scheduler runs" "Creating scheduler with fit predicates" \
  "$(cat "$D"/namespaces/openshift-kube-scheduler/pods/*.log)"
check "the operator's log" has operator-logs/operator-mg.log
for ns in openshift-config openshift-kube-scheduler openshift-kube-scheduler-operator; do
  check "events of $ns" test -f "$D/namespaces/$ns/events.yaml"
done
check_match "the Scheduler's own events (PolicyRejected)" "PolicyRejected" "$(cat "$D/namespaces/openshift-kube-scheduler-operator/events-scheduler.yaml")"
check_match "the active policy's effective configuration" "predicates \(execution order\):" \
  "$(cat "$D/policy/active.effective.txt" 2>&1)"
check_match "... with the serving revision's weights" "LeastRequestedPriority +weight $W" \
  "$(cat "$D/policy/active.effective.txt" 2>&1)"
check_match "the rejected policy's validator output names the rule" "general-predicates-duplicate" \
  "$(cat "$D/policy/rejected.effective.txt" 2>&1)"
check_match "history.txt (the kubectl plugin) names the serving revision" "^$R .* serving$" \
  "$(grep -E "^$R " "$D/history.txt" 2>&1)"
check_match "errors.txt says the ClusterOperator CRD is absent" "clusteroperators.config.openshift.io: CRD not installed" \
  "$(cat "$D/errors.txt")"
check_eq "no Secret's data anywhere" "" \
  "$(grep -rlE 'super-secret-value|c3VwZXItc2VjcmV0LXZhbHVl|must-not-leak' "$D")"
check_eq "no kind: Secret object anywhere" "" "$(grep -rl '^kind: Secret' "$D")"
check_eq "the extender's private key is not in the archive" "" \
  "$(grep -rlE 'cHJpdmF0ZS1rZXktZGF0YQ|private-key-data' "$D")"
check_match "... it reads REDACTED where it was" "REDACTED" "$(cat "$D/policy/rejected.policy.cfg" "$D/namespaces/openshift-config/configmaps/scheduler-policy.yaml")"

# On OpenShift the ClusterOperator is collected too: OpenShift's CRD (tests/data/crds), and
# the ClusterOperator the running operator then reports by itself.
kubectl apply -f tests/data/crds/clusteroperators.config.openshift.io.yaml >/dev/null &&
  kubectl wait --for condition=Established --timeout=30s crd/clusteroperators.config.openshift.io >/dev/null
co_degraded() {
  kubectl get clusteroperators.config.openshift.io scheduler-policy \
    -o jsonpath='{.status.conditions[?(@.type=="Degraded")].status}' 2>/dev/null
}
wait_for "the operator reports ClusterOperator scheduler-policy once the CRD exists" 60 \
  bash -c "$(declare -f co_degraded); [ \"\$(co_degraded)\" = True ]"
check "with the ClusterOperator CRD: a second archive" \
  bash -c "tools/must-gather --dest '$T/out2' > '$T/path2'"
mkdir -p "$T/y" && tar -C "$T/y" -xzf "$(cat "$T/path2")"
check_match "... holds the ClusterOperator" "kind: ClusterOperator" \
  "$(cat "$T"/y/*/cluster-scoped/clusteroperators/scheduler-policy.yaml 2>&1)"
check_match "... with the operator's status: Degraded for the rejected policy" "reason: InvalidPolicy" \
  "$(cat "$T"/y/*/cluster-scoped/clusteroperators/scheduler-policy.yaml 2>&1)"
check_match "... and Upgradeable=False for the legacy policy" "reason: LegacyPolicyInUse" \
  "$(cat "$T"/y/*/cluster-scoped/clusteroperators/scheduler-policy.yaml 2>&1)"
finish
