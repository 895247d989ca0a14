#!/usr/bin/env bash
# The shipped monitoring with a real Prometheus toolchain (Debian's prometheus, promtool):
# the rule groups of deploy/monitoring/prometheusrule.yaml pass `promtool check rules`, and
# `promtool test rules` (tests/data/monitoring/rules-test.yaml) makes every alert fire and
# resolve; a copy with an alert's condition inverted must fail those tests (they can fail).
# kubectl's built-in kustomize builds deploy/ and deploy/monitoring/, and the API server
# accepts both (server-side dry run; monitoring CRD copies from tests/data).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

extract_rules() { # PROMETHEUSRULE OUT: the spec's rule groups as a Prometheus rule file
  python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["kind"] == "PrometheusRule", d["kind"]
yaml.safe_dump({"groups": d["spec"]["groups"]}, open(sys.argv[2], "w"), sort_keys=False)' "$1" "$2"
}

check "the PrometheusRule's groups extract to a rule file" \
  extract_rules deploy/monitoring/prometheusrule.yaml "$T/rules.yaml"
check "promtool check rules accepts them" promtool check rules "$T/rules.yaml"
alerts=$(python3 -c 'import sys, yaml
print(" ".join(sorted(r["alert"] for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"] if "alert" in r)))' "$T/rules.yaml")
check_eq "the alerts shipped" \
  "SchedulerNoPodAvailable SchedulerOperatorAPIUnreachable SchedulerOperatorDown SchedulerPodsPendingUnschedulable SchedulerPolicyRejected SchedulerRolloutFailed SchedulerRolloutStuck" \
  "$alerts"
tested=$(grep -o 'alertname: [A-Za-z]*' tests/data/monitoring/rules-test.yaml | awk '{print $2}' | sort -u | xargs)
check_eq "rules-test.yaml exercises every alert" "$alerts" "$tested"
cp tests/data/monitoring/rules-test.yaml "$T/"
check "promtool test rules: each alert fires and resolves" promtool test rules "$T/rules-test.yaml"

# The tests can fail: break one alert (a rejected policy never alerts) and expect failure.
sed 's/scheduler_operator_policy_valid{job="scheduler-operator"} == 0/scheduler_operator_policy_valid{job="scheduler-operator"} == 2/' \
  "$T/rules.yaml" > "$T/broken.yaml"
sed 's/rule_files: \[rules.yaml\]/rule_files: [broken.yaml]/' "$T/rules-test.yaml" > "$T/broken-test.yaml"
if promtool test rules "$T/broken-test.yaml" > "$T/broken.out" 2>&1; then
  not_ok "promtool test rules fails when SchedulerPolicyRejected cannot fire" "$(cat "$T/broken.out")"
else
  check_match "promtool test rules fails when SchedulerPolicyRejected cannot fire" \
    'alertname: SchedulerPolicyRejected' "$(cat "$T/broken.out")"
fi

# kustomize (kubectl v1.20's) and the API server.
check "kubectl kustomize deploy/ builds" kubectl kustomize deploy/
check "kubectl kustomize deploy/monitoring/ builds" kubectl kustomize deploy/monitoring/
check_eq "image references: the operator's image and the scheduler's, substituted" \
  "scheduler-operator:latest --scheduler-image=policy-scheduler:latest" \
  "$(kubectl kustomize deploy/ | python3 -c 'import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "Deployment":
        c = d["spec"]["template"]["spec"]["containers"][0]
        print(c["image"], [a for a in c["args"] if a.startswith("--scheduler-image")][0])')"
# Pinning a digest in the one place changes both references.
mkdir -p "$T/pin"
# (kustomize v2.0.3 takes a base only as a relative path)
cat > "$T/pin/kustomization.yaml" <<KZ
bases:
- $(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$ROOT/deploy" "$T/pin")
images:
- name: scheduler-operator
  newName: registry.example.com/scheduler-operator
  digest: sha256:$(printf a%.0s {1..64})
configMapGenerator:
- name: scheduler-operator-images
  namespace: openshift-kube-scheduler-operator
  behavior: replace
  literals:
  - scheduler=registry.example.com/policy-scheduler@sha256:$(printf b%.0s {1..64})
KZ
check_match "an overlay pins both images by digest" \
  "image: registry.example.com/scheduler-operator@sha256:a{64}.*|--scheduler-image=registry.example.com/policy-scheduler@sha256:b{64}" \
  "$(kubectl kustomize "$T/pin" | grep -E 'image: |--scheduler-image' | tr '\n' ' ')"
check_match "... the scheduler's included" "--scheduler-image=registry.example.com/policy-scheduler@sha256:b{64}" \
  "$(kubectl kustomize "$T/pin")"
# What the plane's tests install (deploy/ with the operator at zero replicas), for real;
# then all of deploy/ as shipped, server-side dry run.
setup "kubectl apply -k tests/data/plane-install (deploy/, operator scaled to 0)" \
  kubectl apply -k tests/data/plane-install
# Each ServiceMonitor selects a shipped Service in its namespace by labels, on a port name
# that Service has; each alert's job is one of those Services (the operator's job label).
check_eq "ServiceMonitors match the shipped Services (namespace, labels, port; the scheduler's two paths)" \
  "openshift-kube-scheduler-operator/scheduler-operator:https-metrics/metrics openshift-kube-scheduler/policy-scheduler:https-metrics/metrics openshift-kube-scheduler/policy-scheduler:https-metrics/metrics/resources" \
  "$( { kubectl kustomize deploy/; echo ---; kubectl kustomize deploy/monitoring/; } | python3 -c 'import sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
svcs = [d for d in docs if d["kind"] == "Service"]
out = []
for sm in (d for d in docs if d["kind"] == "ServiceMonitor"):
    sel = sm["spec"]["selector"]["matchLabels"]
    for ns in sm["spec"]["namespaceSelector"]["matchNames"]:
        for s in svcs:
            if s["metadata"]["namespace"] == ns and all(s["metadata"].get("labels", {}).get(k) == v for k, v in sel.items()):
                names = {p.get("name") for p in s["spec"]["ports"]}
                out += ["%s/%s:%s%s" % (ns, s["metadata"]["name"], e["port"], e.get("path", "")) for e in sm["spec"]["endpoints"] if e["port"] in names]
print(" ".join(out))')"
check_eq "the alerts select the jobs those Services name" "policy-scheduler scheduler-operator" \
  "$(grep -oE 'job="[a-z-]+"' deploy/monitoring/prometheusrule.yaml | sort -u | sed 's/job="//; s/"//' | xargs)"
check "the API server accepts deploy/ as shipped (server-side dry run)" \
  kubectl apply -k deploy/ --dry-run=server
setup "the monitoring CRD copies install" kubectl apply -f tests/data/monitoring/crds/
check "... and become Established" kubectl wait --for condition=Established --timeout=30s \
  crd/servicemonitors.monitoring.coreos.com crd/prometheusrules.monitoring.coreos.com
check "kubectl apply -k deploy/monitoring/" kubectl apply -k deploy/monitoring/
check_eq "... creates the two ServiceMonitors and the PrometheusRule" \
  "openshift-kube-scheduler-operator/scheduler-operator openshift-kube-scheduler-operator/scheduler-policy openshift-kube-scheduler/policy-scheduler" \
  "$(kubectl get servicemonitors,prometheusrules -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}' | LC_ALL=C sort | xargs)"
finish
