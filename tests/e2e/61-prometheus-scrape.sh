#!/usr/bin/env bash
# A real Prometheus (Debian's, on 127.0.0.1, in its own temp dir) scrapes the operator's and
# a policy-scheduler pod's /metrics over HTTPS, as deploy/monitoring's ServiceMonitors tell
# the Prometheus operator to: the bearer token of a service account bound to the shipped
# ClusterRole scheduler-policy-metrics-reader, each daemon checking it with TokenReview and
# SubjectAccessReview under its own service account (ClusterRole
# scheduler-policy-auth-delegator). Each server's self-signed certificate is pinned as the
# scrape's CA. Two more jobs scrape the operator without a token (refused: 401) and with a
# token lacking the RBAC (forbidden: 403).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
. tests/lib/stack.sh
. tests/lib/e2e.sh
. tests/lib/sa-token.sh
T=$(mktemp -d)
NS=prom-e2e-$$
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do stop_pid "$p"; done
  stack_stop_pid operator-prom
  stack_nodesim_stop
  kubectl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1
  kubectl delete clusterrolebinding "$NS-scraper" --ignore-not-found >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

condition() { kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"$1\")].status}"; }
settled() { [ "$(condition Progressing)" = False ] && [ "$(condition Available)" = True ]; }

setup "the shipped install (kubectl apply -k) is in place" stack_install
setup "nodesim brings up three Ready nodes" stack_nodesim_start
stack_operator_start prom --progress-deadline 120 > "$T/health-port"
OP_PORT=$(cat "$CLUSTER_DIR/pids/operator-prom.metrics-port")
wait_for "the operator serves a revision" 150 settled
pod_ip=$(kubectl -n openshift-kube-scheduler get pods -l app=policy-scheduler --field-selector=status.phase=Running \
  -o jsonpath='{.items[0].status.podIP}')
check_match "a running policy-scheduler pod has an IP" '^127\.' "$pod_ip"

kubectl create namespace "$NS" >/dev/null
kubectl -n "$NS" create serviceaccount prometheus >/dev/null
kubectl -n "$NS" create serviceaccount nobody >/dev/null
check "Prometheus's account is bound to the shipped scheduler-policy-metrics-reader" \
  kubectl create clusterrolebinding "$NS-scraper" --clusterrole=scheduler-policy-metrics-reader \
    --serviceaccount="$NS:prometheus"
sa_token "$NS" prometheus > "$T/token" && sa_token "$NS" nobody > "$T/nobody-token"
check "... and has a token" test -s "$T/token"

server_cert() { # HOST:PORT OUT: the certificate the server presents (PEM)
  openssl s_client -connect "$1" </dev/null 2>/dev/null | openssl x509 > "$2" 2>/dev/null && [ -s "$2" ]
}
wait_for "the operator presents a certificate on its secure port" 20 server_cert "127.0.0.1:$OP_PORT" "$T/operator.pem"
wait_for "the scheduler pod presents one on 10259" 30 server_cert "$pod_ip:10259" "$T/scheduler.pem"

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
  tls_config: {ca_file: $T/scheduler.pem}
  static_configs: [{targets: ["$pod_ip:10259"]}]
- job_name: unauthenticated
  scheme: https
  tls_config: {ca_file: $T/operator.pem, server_name: localhost}
  static_configs: [{targets: ["127.0.0.1:$OP_PORT"]}]
- job_name: forbidden
  scheme: https
  authorization: {credentials_file: $T/nobody-token}
  tls_config: {ca_file: $T/operator.pem, server_name: localhost}
  static_configs: [{targets: ["127.0.0.1:$OP_PORT"]}]
YML
check "promtool check config accepts the scrape configuration" promtool check config "$T/prometheus.yml"
prometheus --config.file="$T/prometheus.yml" --web.listen-address="127.0.0.1:$PROM_PORT" \
  --storage.tsdb.path="$T/data" > "$T/prometheus.log" 2>&1 &
PIDS+=($!)
wait_for "Prometheus is ready on 127.0.0.1" 30 curl -sf "http://127.0.0.1:$PROM_PORT/-/ready"

query() { # PROMQL -> "job=value ..." for the result's job labels
  curl -s "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
    jq -r '[.data.result[] | "\(.metric.job)=\(.value[1])"] | sort | join(" ")'
}
up_is() { [ "$(query 'up')" = "$1" ]; }
wait_for "up: both authorized scrapes succeed, the unauthenticated and forbidden ones fail" 30 \
  up_is "forbidden=0 policy-scheduler=1 scheduler-operator=1 unauthenticated=0"
targets=$(curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets")
check_match "the unauthenticated scrape of the operator was refused with 401" "401" \
  "$(jq -r '.data.activeTargets[] | select(.labels.job=="unauthenticated") | .lastError' <<< "$targets")"
check_match "the operator refused the token without RBAC with 403" "403" \
  "$(jq -r '.data.activeTargets[] | select(.labels.job=="forbidden") | .lastError' <<< "$targets")"
check_eq "the authorized scrapes have no error" "" \
  "$(jq -r '.data.activeTargets[] | select(.labels.job=="scheduler-operator" or .labels.job=="policy-scheduler") | .lastError' <<< "$targets" | tr -d '\n')"
# The samples the alerts read are in Prometheus, from the real daemons.
has() { [ -n "$(query "$1")" ]; }
wait_for "the operator's samples are stored (it leads, a revision serves)" 20 \
  has 'scheduler_operator_leader{job="scheduler-operator"} == 1 and on() scheduler_operator_active_revision > 0'
replicas_are() { [ "$(query 'scheduler_operator_scheduler_ready_replicas{job="scheduler-operator"}') $(query 'scheduler_operator_scheduler_desired_replicas{job="scheduler-operator"}')" = "$1" ]; }
wait_for "... its ready and desired scheduler replicas (2 of 2)" 30 replicas_are "scheduler-operator=2 scheduler-operator=2"
check_eq "... its API error counters (every verb and class)" "scheduler-operator=21" \
  "$(query 'count by (job) (scheduler_operator_api_errors_total)')"
wait_for "the scheduler's samples are stored" 20 \
  has 'scheduler_pending_pod_oldest_unschedulable_seconds{job="policy-scheduler"} == 0 and on() scheduler_cache_pods{job="policy-scheduler"} >= 0'
finish
