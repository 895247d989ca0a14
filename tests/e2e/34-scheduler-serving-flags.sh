#!/usr/bin/env bash
# The secure port with the flags OpenShift 4.19's operand passes, on a real API server:
# --cert-dir keeps the self-signed pair (kube-scheduler.crt/.key) and a restart serves the same
# certificate; --tls-min-version VersionTLS13 refuses a TLS 1.2 client and serves a TLS 1.3
# one; --tls-cipher-suites with OpenShift's Intermediate list serves TLS 1.2 with a named suite
# and refuses one outside it; an unknown suite or version stops the start in upstream's
# words; --feature-gates with OpenShift's own gate names starts a v1 configuration, which
# serves securely only (no plain port unless --port asks).
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-serving-flags.log"
cleanup() {
  stop_pid "$SCHED_PID"
  rm -rf "$T"
}
trap cleanup EXIT

INTERMEDIATE=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256
cat > "$T/v1.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
clientConnection: {kubeconfig: $KUBECONFIG}
profiles:
- schedulerName: serving-flags
YAML
SPORT=$(free_port)
start() { # FLAGS...
  "$BIN_DIR/policy-scheduler" --config "$T/v1.yaml" --bind-address 127.0.0.1 --secure-port "$SPORT" \
    --cert-dir "$T/certs" "$@" >> "$LOG" 2>&1 &
  SCHED_PID=$!
  wait_for "policy-scheduler serves /healthz over HTTPS" 30 curl -skf "https://127.0.0.1:$SPORT/healthz"
}
fingerprint() {
  openssl s_client -connect "127.0.0.1:$SPORT" </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256
}

# ---- --cert-dir, --tls-min-version VersionTLS13, OpenShift's gates ----
start --tls-min-version=VersionTLS13 --feature-gates=GatewayAPI=true,AdminNetworkPolicy=true,SchedulerQueueingHints=true
check "(cert-dir) the self-signed pair is written as kube-scheduler.crt and .key" \
  test -s "$T/certs/kube-scheduler.crt" -a -s "$T/certs/kube-scheduler.key"
check_eq "(cert-dir) ... the key readable by its owner only" 600 "$(stat -c %a "$T/certs/kube-scheduler.key")"
first=$(fingerprint)
check_match "(cert-dir) the certificate served is read back" "Fingerprint=" "$first"
check "(min version) a TLS 1.2 client is refused" bash -c "! curl -sk --tls-max 1.2 https://127.0.0.1:$SPORT/healthz"
check "(min version) ... a TLS 1.3 one served" curl -skf --tlsv1.3 "https://127.0.0.1:$SPORT/healthz"
check_match "(gates) OpenShift's own gate names are logged as unrecognized, as its kube-scheduler does" \
  "unrecognized feature gate: GatewayAPI" "$(cat "$LOG")"
check "(secure only) a v1 configuration opens no plain port" bash -c "! grep -q 'serving plain HTTP' '$LOG'"
stop_pid "$SCHED_PID"
SCHED_PID=

# ---- a restart serves the same certificate; Intermediate's suites ----
start --tls-min-version=VersionTLS12 --tls-cipher-suites="$INTERMEDIATE"
check_eq "(cert-dir) after a restart the same certificate is served" "$first" "$(fingerprint)"
check "(suites) TLS 1.2 with a suite of the list is served" \
  curl -skf --tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-GCM-SHA256 "https://127.0.0.1:$SPORT/healthz"
check "(suites) ... one outside it (CBC) is refused" \
  bash -c "! curl -sk --tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-SHA https://127.0.0.1:$SPORT/healthz"
stop_pid "$SCHED_PID"
SCHED_PID=

# ---- refusals in upstream's words ----
refused() { # WHAT NEEDLE FLAGS...
  local what=$1 needle=$2; shift 2
  timeout 30 "$BIN_DIR/policy-scheduler" --config "$T/v1.yaml" --secure-port 0 "$@" > "$T/refused.log" 2>&1
  local rc=$?
  check "(refused) $what: the start stops (exit $rc, not 124: the timeout)" [ "$rc" -ne 0 -a "$rc" -ne 124 ]
  check_match "(refused) ... $needle" "$needle" "$(cat "$T/refused.log")"
}
refused "an unknown version" 'unknown tls version "VersionTLS14"' --tls-min-version=VersionTLS14
refused "an unknown suite" "Cipher suite TLS_NOPE not supported or doesn't exist" --tls-cipher-suites=TLS_NOPE
finish
