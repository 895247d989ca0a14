#!/usr/bin/env bash
# A real Prometheus (Debian's, on 127.0.0.1, in its own temp dir) scrapes the operator's and
# a policy-scheduler pod's /metrics over HTTPS, as deploy/monitoring's ServiceMonitors tell
# the Prometheus operator to: the bearer token of a service account bound to the shipped
# ClusterRole scheduler-policy-metrics-reader, each daemon checking it with TokenReview and
# SubjectAccessReview under its own service account (ClusterRole
# scheduler-policy-auth-delegator). As on OpenShift with its service CA, each daemon serves
# a certificate for its Service's name signed by a CA (here the test's): the operator its
# --tls-cert-file, the scheduler pods the Secret policy-scheduler-metrics-tls the operator
# mounts (--scheduler-serving-cert-secret); Prometheus verifies both against that CA and
# the Services' names, as the shipped ServiceMonitors do. Two more jobs scrape the operator without a token (refused: 401) and with a
# token lacking the RBAC (forbidden: 403).
. "$(dirname "$0")/../lib/stack-script.sh"
. tests/lib/sa-token.sh
NS=prom-e2e-$$
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do stop_pid "$p"; done
  stack_nodesim_stop
  kubectl -n openshift-kube-scheduler delete secret policy-scheduler-metrics-tls --ignore-not-found >/dev/null 2>&1
  kubectl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1
  kubectl delete clusterrolebinding "$NS-scraper" --ignore-not-found >/dev/null 2>&1
}


setup "the shipped install (kubectl apply -k) is in place" stack_install
tls_of() { # NS NAME: how the shipped ServiceMonitor's endpoint checks the server
  kubectl -n "$1" get servicemonitor "$2" -o json | jq -r '.spec.endpoints[0].tlsConfig |
    if .insecureSkipVerify then "insecureSkipVerify" elif .caFile and .serverName then "\(.caFile) \(.serverName)" else "unverified" end'
}
check_eq "the shipped ServiceMonitor of the operator verifies its certificate (service CA, Service name)" \
  "/etc/prometheus/configmaps/serving-certs-ca-bundle/service-ca.crt scheduler-operator.openshift-kube-scheduler-operator.svc" \
  "$(tls_of openshift-kube-scheduler-operator scheduler-operator)"
check_eq "... and the scheduler's" \
  "/etc/prometheus/configmaps/serving-certs-ca-bundle/service-ca.crt policy-scheduler.openshift-kube-scheduler.svc" \
  "$(tls_of openshift-kube-scheduler policy-scheduler)"
check_eq "the shipped operator Deployment mounts its serving certificate Secret" scheduler-operator-metrics-tls \
  "$(kubectl -n openshift-kube-scheduler-operator get deployment scheduler-operator -o jsonpath='{.spec.template.spec.volumes[*].secret.secretName}')"
OP_SVC=scheduler-operator.openshift-kube-scheduler-operator.svc
SCHED_SVC=policy-scheduler.openshift-kube-scheduler.svc
serving_certs() { # a CA and a certificate for each Service's name, as the service CA signs them
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=test-service-ca \
    -keyout "$T/ca.key" -out "$T/ca.crt" 2>/dev/null || return 1
  local svc name
  for svc in "$OP_SVC" "$SCHED_SVC"; do
    name=${svc%%.*}
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$svc" \
      -keyout "$T/$name.key" -out "$T/$name.csr" 2>/dev/null &&
    openssl x509 -req -in "$T/$name.csr" -CA "$T/ca.crt" -CAkey "$T/ca.key" -CAcreateserial -days 1 \
      -extfile <(printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\n' "$svc") -out "$T/$name.crt" 2>/dev/null ||
      return 1
  done
  kubectl -n openshift-kube-scheduler delete secret policy-scheduler-metrics-tls --ignore-not-found >/dev/null &&
  kubectl -n openshift-kube-scheduler create secret tls policy-scheduler-metrics-tls \
    --cert="$T/policy-scheduler.crt" --key="$T/policy-scheduler.key" >/dev/null
}
check "serving certificates for both Services, signed by a CA, the scheduler's in its Secret" serving_certs
setup "nodesim brings up three Ready nodes" stack_nodesim_start
stack_operator_start prom --progress-deadline 120 --scheduler-serving-cert-secret policy-scheduler-metrics-tls \
  --tls-cert-file "$T/scheduler-operator.crt" --tls-private-key-file "$T/scheduler-operator.key" > "$T/health-port"
OP_PORT=$(cat "$CLUSTER_DIR/pids/operator-prom.metrics-port")
wait_for "the operator serves a revision" 150 settled
# a pod of the revision that mounts the Secret: an earlier script's pods may still be running
# (terminating) right after the operator settles, without it
cert_pod_ip() {
  kubectl -n openshift-kube-scheduler get pods -l app=policy-scheduler --field-selector=status.phase=Running -o json |
    jq -r '[.items[] | select(.metadata.deletionTimestamp == null)
             | select(any(.spec.volumes[]?; .name == "serving-cert"))][0].status.podIP // empty'
}
has_cert_pod() { [[ $(cert_pod_ip) =~ ^127\. ]]; }
wait_for "a running policy-scheduler pod mounts the serving certificate and has an IP" 120 has_cert_pod
pod_ip=$(cert_pod_ip)

kubectl create namespace "$NS" >/dev/null
kubectl -n "$NS" create serviceaccount prometheus >/dev/null
kubectl -n "$NS" create serviceaccount nobody >/dev/null
check "Prometheus's account is bound to the shipped scheduler-policy-metrics-reader" \
  kubectl create clusterrolebinding "$NS-scraper" --clusterrole=scheduler-policy-metrics-reader \
    --serviceaccount="$NS:prometheus"
sa_token "$NS" prometheus > "$T/token" && sa_token "$NS" nobody > "$T/nobody-token"
check "... and has a token" test -s "$T/token"

verified() { # SERVICE HOST:PORT: a TLS connection verified against the CA under the Service's name
  local port=${2##*:}
  curl -s -o /dev/null -w '%{http_code}' --cacert "$T/ca.crt" --connect-to "$1:$port:$2" "https://$1:$port/metrics" |
    grep -qx 401
}
wait_for "the operator's certificate verifies against the CA under its Service's name" 20 verified "$OP_SVC" "127.0.0.1:$OP_PORT"
wait_for "the scheduler pod serves the mounted Secret's certificate, verified the same way" 30 \
  verified "$SCHED_SVC" "$pod_ip:10259"
check "another CA's view of the scheduler's certificate fails (nothing self-signed is served)" \
  bash -c "! curl -s -o /dev/null --cacert '$CLUSTER_DIR/pki/ca.crt' --connect-to '$SCHED_SVC:10259:$pod_ip:10259' 'https://$SCHED_SVC:10259/metrics'"

PROM_PORT=$(free_port)
cat > "$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
- job_name: scheduler-operator
  scheme: https
  authorization: {credentials_file: $T/token}
  tls_config: {ca_file: $T/ca.crt, server_name: $OP_SVC}
  static_configs: [{targets: ["127.0.0.1:$OP_PORT"]}]
- job_name: policy-scheduler
  scheme: https
  authorization: {credentials_file: $T/token}
  tls_config: {ca_file: $T/ca.crt, server_name: $SCHED_SVC}
  static_configs: [{targets: ["$pod_ip:10259"]}]
- job_name: unauthenticated
  scheme: https
  tls_config: {ca_file: $T/ca.crt, server_name: $OP_SVC}
  static_configs: [{targets: ["127.0.0.1:$OP_PORT"]}]
- job_name: forbidden
  scheme: https
  authorization: {credentials_file: $T/nobody-token}
  tls_config: {ca_file: $T/ca.crt, server_name: $OP_SVC}
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
