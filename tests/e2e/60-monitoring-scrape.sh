#!/usr/bin/env bash
# The metrics the shipped alerts are written against, live: the operator's and a
# policy-scheduler pod's /metrics on the plane, scraped over HTTPS with a service account
# token bound to scheduler-policy-metrics-reader, pass `promtool check metrics` (exposition
# format and naming lint), and carry every series deploy/monitoring/prometheusrule.yaml
# uses from them. The operator's plain-HTTP port serves the probes only.
. "$(dirname "$0")/../lib/stack-script.sh"
cleanup() {
  kubectl -n default delete serviceaccount no-metrics --ignore-not-found >/dev/null 2>&1
  stack_nodesim_stop
}


setup "the stack installs (kubectl apply -k)" stack_install
setup "nodesim brings up three Ready nodes" stack_nodesim_start
OP_PORT=$(stack_operator_start mon)
wait_for "the operator serves a revision" 150 settled
leads() { stack_operator_metrics mon | grep -qx 'scheduler_operator_leader 1'; }
wait_for "the operator leads (its gauges are meaningful)" 30 leads
stack_operator_metrics mon > "$T/operator.txt"
check_eq "the operator's plain-HTTP port serves no /metrics" 404 \
  "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$OP_PORT/metrics")"
check_eq "... and its probes" 200 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$OP_PORT/healthz")"
SPORT=$(cat "$CLUSTER_DIR/pids/operator-mon.metrics-port")
op_status() { curl -sk -o /dev/null -w '%{http_code}' "$@" "https://127.0.0.1:$SPORT/metrics"; }
check_eq "the operator's HTTPS /metrics refuses a scrape without a token (401)" 401 "$(op_status)"
check_eq "... and a token the API server does not know (401)" 401 "$(op_status -H 'Authorization: Bearer not-a-token')"
kubectl -n default get serviceaccount no-metrics >/dev/null 2>&1 || kubectl -n default create serviceaccount no-metrics >/dev/null
. tests/lib/sa-token.sh
check_eq "... and forbids a known account without the RBAC (403)" 403 \
  "$(op_status -H "Authorization: Bearer $(sa_token default no-metrics)")"
check "promtool check metrics: the operator's /metrics" bash -c "promtool check metrics < '$T/operator.txt'"

# a running pod that is not on its way out (an earlier script's may still be terminating)
live_pod_ip() {
  kubectl -n openshift-kube-scheduler get pods -l app=policy-scheduler --field-selector=status.phase=Running -o json |
    jq -r '[.items[] | select(.metadata.deletionTimestamp == null)][0].status.podIP // empty'
}
has_live_pod() { [[ $(live_pod_ip) =~ ^127\. ]]; }
wait_for "a running policy-scheduler pod has an IP" 60 has_live_pod
pod_ip=$(live_pod_ip)
TOKEN=$(stack_scrape_token)
wait_for "the scheduler pod answers /metrics over HTTPS (10259) with the token" 30 \
  curl -skf -H "Authorization: Bearer $TOKEN" "https://$pod_ip:10259/metrics" -o "$T/scheduler.txt"
check "promtool check metrics: policy-scheduler's /metrics" bash -c "promtool check metrics < '$T/scheduler.txt'"

# Every metric name the alerts use from the daemons is exported.
used=$(grep -oE '\bscheduler_(operator|pending)_[a-z_]+\b' deploy/monitoring/prometheusrule.yaml | sort -u)
for m in $used; do
  check "the alerts' series $m is exported" grep -qE "^$m(\{| )" "$T/operator.txt" "$T/scheduler.txt"
done
finish
