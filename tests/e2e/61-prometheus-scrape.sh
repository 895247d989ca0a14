#!/usr/bin/env bash
# A real Prometheus (Debian's, on 127.0.0.1, in its own temp dir) scrapes /metrics served
# over HTTPS behind kube/auth-delegate, as deploy/monitoring's ServiceMonitors tell the
# Prometheus operator to: bearer token of a service account bound to the shipped
# ClusterRole scheduler-policy-metrics-reader, the endpoint checking it with the shipped
# operator and scheduler service accounts (ClusterRole scheduler-policy-auth-delegator).
# Two endpoints stand in for the operator's and the scheduler's (metrics-auth-server, each
# with that daemon's service account); a third job scrapes without a token and is refused,
# a fourth with a token lacking the RBAC and is forbidden.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || exit 1
. tests/lib/stack.sh
. tests/lib/e2e.sh
. tests/lib/sa-token.sh
T=$(mktemp -d)
NS=prom-e2e-$$
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do stop_pid "$p"; done
  kubectl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1
  kubectl delete clusterrolebinding "$NS-scraper" --ignore-not-found >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

check "the shipped install (kubectl apply -k) is in place" stack_install
kubectl create namespace "$NS" >/dev/null
kubectl -n "$NS" create serviceaccount prometheus >/dev/null
kubectl -n "$NS" create serviceaccount nobody >/dev/null
check "Prometheus's account is bound to the shipped scheduler-policy-metrics-reader" \
  kubectl create clusterrolebinding "$NS-scraper" --clusterrole=scheduler-policy-metrics-reader \
    --serviceaccount="$NS:prometheus"
sa_token "$NS" prometheus > "$T/token" && sa_token "$NS" nobody > "$T/nobody-token"
check "... and has a token" test -s "$T/token"
sa_kubeconfig openshift-kube-scheduler-operator scheduler-operator "$T/operator.kubeconfig"
sa_kubeconfig openshift-kube-scheduler policy-scheduler "$T/scheduler.kubeconfig"

start_endpoint() { # NAME KUBECONFIG: prints the port
  "$BIN_DIR/metrics-auth-server" --kubeconfig "$2" --listen 127.0.0.1:0 --write-cert "$T/$1.pem" \
    > "$T/$1.log" 2>&1 &
  echo $! > "$T/$1.pid"
  local port
  for _ in $(seq 1 100); do port=$(sed -n 's/^port=//p' "$T/$1.log"); [ -n "$port" ] && break; sleep 0.1; done
  echo "$port"
}
OP_PORT=$(start_endpoint operator "$T/operator.kubeconfig"); PIDS+=("$(cat "$T/operator.pid")")
SCHED_PORT=$(start_endpoint scheduler "$T/scheduler.kubeconfig"); PIDS+=("$(cat "$T/scheduler.pid")")
check "two HTTPS endpoints (operator's and scheduler's accounts) listen" test -n "$OP_PORT" -a -n "$SCHED_PORT"

PROM_PORT=$(free_port)
cat > "$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
- job_name: scheduler-operator
  scheme: https
  authorization: {credentials_file: $T/token}
  tls_config: {ca_file: $T/operator.pem, server_name: localhost}
  static_configs: [{targets: ["127.0.0.1:$OP_PORT"]}]
- job_name: policy-scheduler
  scheme: https
  authorization: {credentials_file: $T/token}
  tls_config: {ca_file: $T/scheduler.pem, server_name: localhost}
  static_configs: [{targets: ["127.0.0.1:$SCHED_PORT"]}]
- job_name: unauthenticated
  scheme: https
  tls_config: {ca_file: $T/operator.pem, server_name: localhost}
  static_configs: [{targets: ["127.0.0.1:$OP_PORT"]}]
- job_name: forbidden
  scheme: https
  authorization: {credentials_file: $T/nobody-token}
  tls_config: {ca_file: $T/scheduler.pem, server_name: localhost}
  static_configs: [{targets: ["127.0.0.1:$SCHED_PORT"]}]
YML
check "promtool check config accepts the scrape configuration" promtool check config "$T/prometheus.yml"
prometheus --config.file="$T/prometheus.yml" --web.listen-address="127.0.0.1:$PROM_PORT" \
  --storage.tsdb.path="$T/data" > "$T/prometheus.log" 2>&1 &
PIDS+=($!)
wait_for "Prometheus is ready on 127.0.0.1" 30 curl -sf "http://127.0.0.1:$PROM_PORT/-/ready"

query() { # PROMQL -> "labelvalue=value ..." for the result's job labels
  curl -s "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
    jq -r '[.data.result[] | "\(.metric.job)=\(.value[1])"] | sort | join(" ")'
}
up_is() { [ "$(query 'up')" = "$1" ]; }
wait_for "up: both authorized scrapes succeed, the unauthenticated and forbidden ones fail" 30 \
  up_is "forbidden=0 policy-scheduler=1 scheduler-operator=1 unauthenticated=0"
targets=$(curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets")
check_match "the unauthenticated scrape was refused with 401" "401" \
  "$(jq -r '.data.activeTargets[] | select(.labels.job=="unauthenticated") | .lastError' <<< "$targets")"
check_match "the token without RBAC was refused with 403" "403" \
  "$(jq -r '.data.activeTargets[] | select(.labels.job=="forbidden") | .lastError' <<< "$targets")"
check_eq "the authorized scrapes have no error" "" \
  "$(jq -r '.data.activeTargets[] | select(.labels.job=="scheduler-operator" or .labels.job=="policy-scheduler") | .lastError' <<< "$targets" | tr -d '\n')"
wait_for "the samples are in Prometheus (served counts grow)" 20 \
  bash -c "[ \"\$(curl -s 'http://127.0.0.1:$PROM_PORT/api/v1/query' --data-urlencode 'query=min(metrics_auth_requests_total{outcome=\"served\"}) > 2' | jq '.data.result | length')\" = 1 ]"
check_match "the refused scrapes are counted by the endpoints" '[1-9]' \
  "$(query 'sum(metrics_auth_requests_total{outcome="refused",job="scheduler-operator"})')"
check_match "... and cached: the token was reviewed once per TTL, not per scrape" "^scheduler-operator=[1-3]$" \
  "$(query 'metrics_auth_token_reviews_total{job="scheduler-operator"} <= 3')"
finish
