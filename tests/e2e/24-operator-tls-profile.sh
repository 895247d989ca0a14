#!/usr/bin/env bash
# scheduler-operator renders the scheduler's --tls-min-version and --tls-cipher-suites from
# the cluster's TLS security profile where the API server serves apiservers.config.openshift.io
# (OpenShift), as 4.19's config observer does, and from its own flag elsewhere; on the real
# local control plane with nodesim nodes and kubectl:
#   - without the API: --scheduler-tls-security-profile Old's flags, status.servingTLS says so;
#   - the APIServer CRD installed while the operator runs (tests/data/crds) and `cluster`
#     created with Modern: the Deployment's flags become Modern's and the rollout completes;
#   - Custom: its minTLSVersion and its OpenSSL cipher names in Go's names, a name library-go
#     does not map and one Go has no suite for left out and logged;
#   - the profile removed: Intermediate, OpenShift's default;
#   - the CRD removed: the flag's profile again;
#   - throughout, --cert-dir=/var/run/kubernetes on an emptyDir, as 4.19's pod has it.
# The operator runs with its service account's RBAC (deploy/), which must let it watch
# apiservers. Leaves no CRD behind. Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/stack-script.sh"
OPNS=openshift-kube-scheduler
CRD=tests/data/crds/apiservers.config.openshift.io.yaml
LOG="$CLUSTER_DIR/logs/operator-tls.log"
cleanup() {
  stack_nodesim_stop
  kubectl delete crd apiservers.config.openshift.io --ignore-not-found >/dev/null 2>&1
}
command_of() { kubectl -n $OPNS get deployment policy-scheduler -o jsonpath='{.spec.template.spec.containers[0].command}' 2>/dev/null; }
# the value of a flag in the Deployment's command, "" when absent (from the JSON whole: the
# cipher list has commas)
flag() { command_of | python3 -c 'import json,sys; p="--"+sys.argv[1]+"="; a=[x[len(p):] for x in json.load(sys.stdin) if x.startswith(p)]; print(a[0] if a else "")' "$1" 2>/dev/null; }
ciphers() { flag tls-cipher-suites; }
serving_tls() { kubectl get scheduler cluster -o jsonpath="{.status.servingTLS.$1}"; }
flags_are() { [ "$(flag tls-min-version)" = "$1" ] && [ "$(ciphers)" = "$2" ]; }
rolled_out() { # the Deployment's newest generation is observed and complete
  local g o u r
  read -r g o u r < <(kubectl -n $OPNS get deployment policy-scheduler \
    -o jsonpath='{.metadata.generation} {.status.observedGeneration} {.status.updatedReplicas} {.status.readyReplicas}')
  [ "$g" = "$o" ] && [ -n "$u" ] && [ "$u" = "$r" ] && settled
}
apiserver() { # YAML of spec.tlsSecurityProfile
  kubectl apply -f - >/dev/null <<EOT
apiVersion: config.openshift.io/v1
kind: APIServer
metadata: {name: cluster}
spec:
$1
EOT
}

OLD_CIPHERS="TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,TLS_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_256_GCM_SHA384,TLS_RSA_WITH_AES_128_CBC_SHA256,TLS_RSA_WITH_AES_128_CBC_SHA,TLS_RSA_WITH_AES_256_CBC_SHA,TLS_RSA_WITH_3DES_EDE_CBC_SHA"
MODERN_CIPHERS="TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256"
INTERMEDIATE_CIPHERS="TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"

setup "CRDs, namespaces and RBAC install" stack_install
setup "nothing of the operator is left from earlier scripts" stack_reset_operator_state
setup "nodesim brings up three Ready nodes" stack_nodesim_start
kubectl apply -f - >/dev/null <<'EOF'
apiVersion: config.openshift.io/v1
kind: Scheduler
metadata: {name: cluster}
spec: {}
EOF

# --- without the API: the operator's flag ------------------------------------------------------
: > "$LOG"
stack_operator_start tls --scheduler-tls-security-profile Old > /dev/null
wait_for "without the APIServer API revision 1 serves" 90 serving 1
check "... with the flag's profile (Old)" flags_are VersionTLS10 "$OLD_CIPHERS"
check_eq "... status.servingTLS says so" "Old --scheduler-tls-security-profile VersionTLS10" \
  "$(serving_tls profile) $(serving_tls source) $(serving_tls minTLSVersion)"
check "... and the log that the API is not served" grep -q 'does not serve apiservers.config.openshift.io' "$LOG"
check_eq "... and 4.19's --cert-dir, on an emptyDir of its own" "--cert-dir=/var/run/kubernetes|{}" \
  "$(flag cert-dir | sed 's/^/--cert-dir=/')|$(kubectl -n $OPNS get deployment policy-scheduler \
     -o jsonpath='{.spec.template.spec.volumes[?(@.name=="cert-dir")].emptyDir}')"

# --- the API installed, cluster with Modern ----------------------------------------------------
setup "the APIServer CRD is installed" kubectl apply -f "$CRD"
check "... and established" kubectl wait --for condition=Established --timeout=30s crd/apiservers.config.openshift.io
setup "APIServer cluster with the Modern profile" apiserver "  tlsSecurityProfile: {type: Modern, modern: {}}"
wait_for "the Deployment's flags become Modern's (the operator finds the API within its backoff)" 60 \
  flags_are VersionTLS13 "$MODERN_CIPHERS"
check_eq "... status.servingTLS: Modern from APIServer cluster" "Modern|APIServer cluster" \
  "$(serving_tls profile)|$(serving_tls source)"
wait_for "... the scheduler's pods roll out with them" 90 rolled_out
check "... the log names the profile" grep -q 'serves with TLS profile Modern (APIServer cluster)' "$LOG"

# --- Custom ----------------------------------------------------------------------------------
setup "APIServer cluster with a Custom profile" apiserver "  tlsSecurityProfile:
    type: Custom
    custom:
      minTLSVersion: VersionTLS12
      ciphers: [ECDHE-RSA-AES128-GCM-SHA256, ECDHE-ECDSA-AES256-GCM-SHA384, DHE-RSA-AES128-GCM-SHA256, TLS_RSA_WITH_AES_128_CBC_SHA, AES128-SHA]"
wait_for "Custom: its version and its OpenSSL names in Go's names" 30 \
  flags_are VersionTLS12 "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_RSA_WITH_AES_128_CBC_SHA"
check_eq "... status.servingTLS: Custom" "Custom|VersionTLS12" "$(serving_tls profile)|$(serving_tls minTLSVersion)"
check "... what was left out is logged (no Go suite; not in library-go's table)" grep -q \
  'left out DHE-RSA-AES128-GCM-SHA256 (no Go suite), TLS_RSA_WITH_AES_128_CBC_SHA (unknown)' "$LOG"
wait_for "... the scheduler's pods roll out with them (it accepts the flags)" 90 rolled_out

# --- the profile removed: Intermediate ----------------------------------------------------------
setup "APIServer cluster without a profile" kubectl patch apiserver cluster --type=json \
  -p '[{"op":"remove","path":"/spec/tlsSecurityProfile"}]'
wait_for "no profile: Intermediate, OpenShift's default" 30 flags_are VersionTLS12 "$INTERMEDIATE_CIPHERS"
check_eq "... status.servingTLS says why" "Intermediate|APIServer cluster (no usable profile set)" \
  "$(serving_tls profile)|$(serving_tls source)"
wait_for "... rolled out" 90 rolled_out

# --- the CRD removed: the flag again --------------------------------------------------------------
setup "the APIServer CRD is removed while the operator runs" kubectl delete crd apiservers.config.openshift.io --wait=true
wait_for "the flag's profile (Old) applies again" 60 flags_are VersionTLS10 "$OLD_CIPHERS"
check_eq "... status.servingTLS says so" "Old|--scheduler-tls-security-profile" "$(serving_tls profile)|$(serving_tls source)"
wait_for "... rolled out" 90 rolled_out
check_eq "the revision stayed 1 throughout (only the Deployment's flags changed)" "1" "$(revision)"
check "the operator is alive" alive "$(cat "$CLUSTER_DIR/pids/operator-tls.pid")"
finish
