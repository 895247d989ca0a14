#!/usr/bin/env bash
# The secure port's authenticators beyond the token, on a real API server (kube-apiserver
# v1.20.2 publishes configmap kube-system/extension-apiserver-authentication with its
# client-ca-file): without --client-ca-file the CA is looked up there, and the plane's admin
# certificate (group system:masters) reads /metrics; no credentials, or a certificate no CA
# signed, is 401; --authentication-skip-lookup turns the lookup off; a lookup that fails
# warns (tolerated, kube-scheduler's default) or, with
# --authentication-tolerate-lookup-failure=false, stops the start in upstream's words (when
# the request-header set was to come from it: the client CA alone only warns); a
# front proxy signed by --requestheader-client-ca-file (its CN allowed) names the user in
# X-Remote-User/X-Remote-Group, which a client without that certificate cannot; and
# --tls-sni-cert-key serves its certificate to the names it is for.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-client-certificates.log"
P="$CLUSTER_DIR/pki"
cleanup() {
  stop_pid "$SCHED_PID"
  rm -rf "$T"
}
trap cleanup EXIT

cat > "$T/v1.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
clientConnection: {kubeconfig: $KUBECONFIG}
profiles:
- schedulerName: client-certificates
YAML
# a front proxy's CA and client, a stranger's self-signed client, an SNI certificate
(
  cd "$T"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout proxy-ca.key -out proxy-ca.crt \
    -days 2 -subj /CN=front-proxy-ca 2>/dev/null
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout proxy.key -out proxy.csr \
    -subj /CN=front-proxy-client 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' > client.ext
  openssl x509 -req -in proxy.csr -CA proxy-ca.crt -CAkey proxy-ca.key -CAcreateserial -days 2 \
    -extfile client.ext -out proxy.crt 2>/dev/null
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout stranger.key -out stranger.crt \
    -days 2 -subj "/O=system:masters/CN=admin" -addext extendedKeyUsage=clientAuth 2>/dev/null
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout sni.key -out sni.crt \
    -days 2 -subj /CN=metrics.sni.test -addext subjectAltName=DNS:metrics.sni.test 2>/dev/null
)
SPORT=$(free_port)
start() { # FLAGS...
  "$BIN_DIR/policy-scheduler" --config "$T/v1.yaml" --bind-address 127.0.0.1 --secure-port "$SPORT" "$@" \
    >> "$LOG" 2>&1 &
  SCHED_PID=$!
  wait_for "policy-scheduler serves /healthz over HTTPS" 30 curl -skf "https://127.0.0.1:$SPORT/healthz"
}
stop() {
  stop_pid "$SCHED_PID"
  SCHED_PID=
}
status() { # CURL-ARGS...: the status of GET /metrics
  curl -sk -o /dev/null -w '%{http_code}' "$@" "https://127.0.0.1:$SPORT/metrics"
}
ADMIN=(--cert "$P/admin.crt" --key "$P/admin.key")

# ---- the client CA from extension-apiserver-authentication ----
check "(lookup) the API server publishes its client-ca-file" \
  bash -c "kubectl -n kube-system get configmap extension-apiserver-authentication -o jsonpath='{.data.client-ca-file}' | grep -q 'BEGIN CERTIFICATE'"
: > "$LOG"
start
check_match "(lookup) the client CA is taken from the ConfigMap" \
  "client-ca-file from configmap/extension-apiserver-authentication" "$(cat "$LOG")"
check_eq "(x509) the admin's certificate (system:masters) reads /metrics" 200 "$(status "${ADMIN[@]}")"
check_match "(x509) ... the scheduler's families" "scheduler_" "$(curl -sk "${ADMIN[@]}" "https://127.0.0.1:$SPORT/metrics")"
check_eq "(x509) no credentials: 401" 401 "$(status)"
check_match "(x509) ... Unauthorized" "Unauthorized" "$(curl -sk "https://127.0.0.1:$SPORT/metrics")"
check_eq "(x509) a certificate no CA signed (same subject): 401" 401 "$(status --cert "$T/stranger.crt" --key "$T/stranger.key")"
check_eq "(x509) the scheduler's certificate (no /metrics right): 403" 403 \
  "$(status --cert "$P/scheduler.crt" --key "$P/scheduler.key")"
check_eq "(token) a bearer token still works alongside" 401 "$(status -H 'Authorization: Bearer not-a-token')"
stop

# ---- --client-ca-file; --authentication-skip-lookup ----
start --client-ca-file "$P/ca.crt" --authentication-skip-lookup
check_eq "(client-ca-file) the admin's certificate reads /metrics" 200 "$(status "${ADMIN[@]}")"
stop
start --authentication-skip-lookup
check_eq "(skip-lookup) without a CA a certificate authenticates nothing" 401 "$(status "${ADMIN[@]}")"
stop

# ---- a lookup that fails: tolerated by default, else the start stops ----
sed -E "s#server: .*#server: https://127.0.0.1:$(free_port)#" "$KUBECONFIG" > "$T/unreachable.kubeconfig"
: > "$LOG"
start --authentication-kubeconfig "$T/unreachable.kubeconfig"
check_match "(tolerate) a failed lookup is warned about" \
  "Error looking up in-cluster authentication configuration" "$(cat "$LOG")"
stop
timeout 30 "$BIN_DIR/policy-scheduler" --config "$T/v1.yaml" --bind-address 127.0.0.1 --secure-port "$SPORT" \
  --authentication-kubeconfig "$T/unreachable.kubeconfig" --authentication-tolerate-lookup-failure=false \
  > "$T/refused.log" 2>&1
rc=$?
check "(tolerate=false) the start stops (exit $rc, not 124: the timeout)" [ "$rc" -ne 0 -a "$rc" -ne 124 ]
check_match "(tolerate=false) ... in upstream's words" "unable to load configmap based request-header-client-ca-file" \
  "$(cat "$T/refused.log")"
: > "$LOG"
start --authentication-kubeconfig "$T/unreachable.kubeconfig" --authentication-tolerate-lookup-failure=false \
  --requestheader-client-ca-file "$T/proxy-ca.crt"
check_match "(tolerate=false) with the request-header CA given, only the client CA was to be looked up: warned, started" \
  "Error looking up in-cluster authentication configuration" "$(cat "$LOG")"
stop

# ---- the front proxy ----
start --requestheader-client-ca-file "$T/proxy-ca.crt" --requestheader-allowed-names front-proxy-client
PROXY=(--cert "$T/proxy.crt" --key "$T/proxy.key")
check_eq "(requestheader) the proxy names a user of system:masters: 200" 200 \
  "$(status "${PROXY[@]}" -H 'X-Remote-User: proxied' -H 'X-Remote-Group: system:masters')"
check_eq "(requestheader) ... a user without the right: 403" 403 "$(status "${PROXY[@]}" -H 'X-Remote-User: proxied')"
check_match "(requestheader) ... upstream's 403 wording" 'Forbidden: user "proxied" cannot get path "/metrics"' \
  "$(curl -sk "${PROXY[@]}" -H 'X-Remote-User: proxied' "https://127.0.0.1:$SPORT/metrics")"
check_eq "(requestheader) the headers without the proxy's certificate: 401" 401 \
  "$(status -H 'X-Remote-User: proxied' -H 'X-Remote-Group: system:masters')"
check_eq "(requestheader) ... with a certificate no CA signed: 401" 401 \
  "$(status --cert "$T/stranger.crt" --key "$T/stranger.key" -H 'X-Remote-User: x' -H 'X-Remote-Group: system:masters')"
check_eq "(requestheader) the client CA (looked up) still authenticates the admin" 200 "$(status "${ADMIN[@]}")"
stop
start --requestheader-client-ca-file "$T/proxy-ca.crt" --requestheader-allowed-names aggregator
check_eq "(requestheader) a proxy whose CN is not allowed names nobody: 401" 401 \
  "$(status "${PROXY[@]}" -H 'X-Remote-User: proxied' -H 'X-Remote-Group: system:masters')"
stop

# ---- --tls-sni-cert-key ----
served() { # SNI-NAME: the subject of the certificate served to it
  openssl s_client -connect "127.0.0.1:$SPORT" -servername "$1" </dev/null 2>/dev/null | openssl x509 -noout -subject
}
start --tls-sni-cert-key "$T/sni.crt,$T/sni.key"
check "(sni) the SNI certificate is served to its name, and verifies for it" \
  curl -sf --cacert "$T/sni.crt" --resolve "metrics.sni.test:$SPORT:127.0.0.1" "https://metrics.sni.test:$SPORT/healthz"
check_match "(sni) ... its subject" "metrics.sni.test" "$(served metrics.sni.test)"
check_match "(sni) another name gets the default (self-signed localhost) certificate" "localhost" "$(served other.sni.test)"
stop
start --tls-sni-cert-key "$T/sni.crt,$T/sni.key:*.wild.test"
check_match "(sni) explicit domains: a wildcard's name" "metrics.sni.test" "$(served a.wild.test)"
check_match "(sni) ... not two labels deep (Go's one-label wildcard)" "localhost" "$(served b.a.wild.test)"
check_match "(sni) ... nor the certificate's own name, once domains are given" "localhost" "$(served metrics.sni.test)"
stop
finish
