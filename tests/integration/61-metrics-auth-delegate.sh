#!/usr/bin/env bash
# Delegated authentication and authorization of /metrics (kube/auth-delegate) against the
# real API server, over HTTPS with a self-signed certificate (common/http-server): a
# service account token that RBAC allows to get /metrics is served, no token is 401, an
# unknown token is 401, a token without the RBAC is 403; decisions are cached (allowed for
# the allowed TTL even after the binding is gone, then 403); a checker whose own account
# may not create TokenReviews fails closed (500), and plain HTTP gets nothing. A bound
# token's uid and extra reach the SubjectAccessReview; unknown tokens past a burst are
# refused (429) without a review. The tokens never appear in the server's output.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
. tests/lib/sa-token.sh
. "$CLUSTER_DIR/env"
BIN_DIR=$(cd "${BIN_DIR:-$ROOT/build/default/bin}" && pwd)
T=$(mktemp -d)
NS=mauth-$$
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  kubectl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1
  kubectl delete clusterrole "$NS-metrics-reader" --ignore-not-found >/dev/null 2>&1
  kubectl delete clusterrolebinding "$NS-reader" "$NS-checker" --ignore-not-found >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

kubectl create namespace "$NS" >/dev/null
for sa in checker reader stranger; do kubectl -n "$NS" create serviceaccount "$sa" >/dev/null; done
kubectl create clusterrole "$NS-metrics-reader" --verb=get --non-resource-url=/metrics >/dev/null
kubectl create clusterrolebinding "$NS-reader" --clusterrole="$NS-metrics-reader" --serviceaccount="$NS:reader" >/dev/null
kubectl create clusterrolebinding "$NS-checker" --clusterrole=system:auth-delegator --serviceaccount="$NS:checker" >/dev/null
check "a kubeconfig for the checking daemon's account (system:auth-delegator only)" \
  sa_kubeconfig "$NS" checker "$T/checker.kubeconfig"
check "... and one for an account without it" sa_kubeconfig "$NS" stranger "$T/stranger.kubeconfig"
READER=$(sa_token "$NS" reader) STRANGER=$(sa_token "$NS" stranger)

start_server() { # KUBECONFIG LOG -> sets PORT
  "$BIN_DIR/metrics-auth-server" --kubeconfig "$1" --listen 127.0.0.1:0 --write-cert "$T/cert.pem" \
    --allowed-ttl 8 --denied-ttl 1 > "$2" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do PORT=$(sed -n 's/^port=//p' "$2"); [ -n "$PORT" ] && return 0; sleep 0.1; done
  return 1
}
scrape() { # [TOKEN] -> prints the HTTP status; the body goes to $T/body
  local h=()
  [ -n "${1:-}" ] && h=(-H "Authorization: Bearer $1")
  curl -s -o "$T/body" -w '%{http_code}' --cacert "$T/cert.pem" "${h[@]}" "https://127.0.0.1:$PORT/metrics"
}

# (start_server sets PORT, so it runs here, not in check's subshell)
if start_server "$T/checker.kubeconfig" "$T/server.log"; then ok "metrics-auth-server starts on HTTPS with a self-signed certificate"
else not_ok "metrics-auth-server starts on HTTPS with a self-signed certificate" "$(cat "$T/server.log")"; PORT=1; fi
check_eq "a service account token RBAC allows to get /metrics: 200" 200 "$(scrape "$READER")"
check "... the body is Prometheus text that promtool check metrics accepts" bash -c "promtool check metrics < '$T/body'"
check_eq "no token: 401" 401 "$(scrape)"
check_match "... saying a bearer token is required" "bearer token is required" "$(cat "$T/body")"
check_eq "a token the API server does not know: 401" 401 "$(scrape "not.a.token")"
check_eq "a valid token without the RBAC: 403" 403 "$(scrape "$STRANGER")"
check_match "... naming the user and the path" "system:serviceaccount:$NS:stranger.*/metrics" "$(cat "$T/body")"
check_eq "a second scrape with the allowed token: 200" 200 "$(scrape "$READER")"
check_match "... answered from the cache" "cached=1" "$(grep 'decision=allowed' "$T/server.log" | tail -1)"
check_eq "the certificate is verified: another CA's view fails" 000 \
  "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$CLUSTER_DIR/pki/ca.crt" -H "Authorization: Bearer $READER" "https://127.0.0.1:$PORT/metrics")"
check_eq "plain HTTP gets no answer" 000 \
  "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")"

# Revoking the binding: allowed while the cached decision lasts (8 s: the checks since the
# review take a few seconds on a loaded machine), then 403.
kubectl delete clusterrolebinding "$NS-reader" >/dev/null
check_eq "binding removed: still allowed from the cache" 200 "$(scrape "$READER")"
wait_for "... and refused (403) once the cached decision expires" 20 bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --cacert '$T/cert.pem' -H 'Authorization: Bearer $READER' https://127.0.0.1:$PORT/metrics)\" = 403 ]"
kubectl create clusterrolebinding "$NS-reader" --clusterrole="$NS-metrics-reader" --serviceaccount="$NS:reader" >/dev/null
wait_for "the binding restored: allowed again" 15 bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --cacert '$T/cert.pem' -H 'Authorization: Bearer $READER' https://127.0.0.1:$PORT/metrics)\" = 200 ]"

# A bound token (TokenRequest for a pod) authenticates with uid and extra (the pod's name
# and uid); the SubjectAccessReview must carry them, as scoped OpenShift tokens narrow a
# user's rights through extra. The plane's audit log keeps the SubjectAccessReviews' bodies.
kubectl -n "$NS" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: token-holder}
spec:
  serviceAccountName: reader
  schedulerName: nobody-schedules-this
  containers: [{name: app, image: token-holder}]
YAML
POD_UID=$(kubectl -n "$NS" get pod token-holder -o jsonpath='{.metadata.uid}')
READER_UID=$(kubectl -n "$NS" get serviceaccount reader -o jsonpath='{.metadata.uid}')
BOUND=$(kubectl create --raw "/api/v1/namespaces/$NS/serviceaccounts/reader/token" -f - <<JSON | jq -r .status.token
{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
 "spec": {"audiences": ["https://kubernetes.default.svc"], "expirationSeconds": 600,
          "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "token-holder", "uid": "$POD_UID"}}}
JSON
)
check "a token bound to a pod (TokenRequest)" test -n "$BOUND"
check_eq "the bound token is allowed: 200" 200 "$(scrape "$BOUND")"
sar_with_extra() {
  jq -c --arg user "system:serviceaccount:$NS:reader" --arg pod token-holder \
    'select(.objectRef.resource == "subjectaccessreviews" and .requestObject.spec.user == $user and
            (.requestObject.spec.extra["authentication.kubernetes.io/pod-name"] // []) == [$pod]) |
     .requestObject.spec.uid' "$CLUSTER_DIR/logs/audit.log" | grep -qx "\"$READER_UID\""
}
wait_for "its SubjectAccessReview carried the TokenReview's uid and extra (pod name)" 10 sar_with_extra

# Reviews are bounded per client address: 20 unknown tokens at once from one address get
# 429 past its reviews in flight and its failure burst, without a review; none is served.
RANDOM_PIDS=()
for i in $(seq 1 20); do { scrape "random.token.$i"; echo; } > "$T/random.$i" & RANDOM_PIDS+=($!); done
wait "${RANDOM_PIDS[@]}"
statuses=$(cat "$T"/random.* | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')
# (000: connections past the per-client connection limit, closed at once)
check_match "20 unknown tokens at once: refused, some with 429 without a review ($statuses)" \
  '^(000=[0-9]+ )?(401=[0-9]+ )?429=[0-9]+ $' "$statuses"

check_eq "no token appears in the server's output" "0" \
  "$(grep -cF -e "$READER" -e "$STRANGER" -e "$BOUND" "$T/server.log")"

# A daemon whose own account may not create TokenReviews cannot decide: 500, never 200.
if start_server "$T/stranger.kubeconfig" "$T/server2.log"; then ok "a server checking with an account without auth-delegator rights starts"
else not_ok "a server checking with an account without auth-delegator rights starts" "$(cat "$T/server2.log")"; fi
check_eq "... answers 500 to the allowed token (fails closed)" 500 "$(scrape "$READER")"
finish
