#!/usr/bin/env bash
# The operator's HTTPS /metrics under disturbance, on the real local control plane. Each
# block tries to break one promise:
#   - a scrape's TokenReview that cannot complete never holds the operator's loop: with the
#     API server frozen (SIGSTOP, as a hung control plane) a scrape with a token the
#     operator has not reviewed yet waits for its review and gets 500, while /healthz and
#     /readyz keep answering at once; once the API server is back, the loop reconciles a
#     change at once and the scrape is allowed;
#   - a rollout that cannot become ready (the admin tainted the only control-plane node,
#     so the new revision's scheduler pod cannot be placed) is rolled back and counted in
#     scheduler_operator_rollouts_failed_total;
#   - the operator's RBAC removed: its refused requests are counted in
#     scheduler_operator_api_errors_total{code="4xx"}, and a scrape still works (the
#     delegated checks have their own ClusterRoleBinding).
# Runs under tools/with-cluster.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
. tests/lib/stack.sh
. tests/lib/sa-token.sh
T=$(mktemp -d)
OPNS=openshift-kube-scheduler
APISERVER=$(cat "$CLUSTER_DIR/pids/kube-apiserver.pid")
TAINT=example.com/maintenance
cleanup() {
  kill -CONT "$APISERVER" 2>/dev/null
  kubectl taint nodes --all "$TAINT-" >/dev/null 2>&1
  kubectl apply -k "$ROOT/tests/data/plane-install" >/dev/null 2>&1
  stack_stop_pid operator-dist
  stack_nodesim_stop
  kubectl -n default delete serviceaccount late-scraper --ignore-not-found >/dev/null 2>&1
  kubectl delete clusterrolebinding late-scraper --ignore-not-found >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

newest_revision() {
  kubectl -n $OPNS get configmaps -l app=policy-scheduler -o jsonpath='{range .items[*]}{.metadata.labels.revision}{"\n"}{end}' |
    sort -n | tail -1
}
metric() { stack_operator_metrics dist | sed -n "s/^scheduler_operator_$1 //p"; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }
api_errors() { # CODE: the sum over verbs
  stack_operator_metrics dist | awk -v c="code=\"$1\"" '/^scheduler_operator_api_errors_total/ && index($0, c) { s += $2 } END { print s + 0 }'
}

setup "CRD, namespaces and RBAC install" stack_install
setup "nothing of the operator is left from earlier scripts" stack_reset_operator_state
stack_put_policy deploy/policy.cfg
kubectl apply -f - >/dev/null <<'YAML'
apiVersion: config.openshift.io/v1
kind: Scheduler
metadata: {name: cluster}
spec: {policy: {name: scheduler-policy}}
YAML
setup "nodesim brings up three Ready nodes" stack_nodesim_start
HEALTH=$(stack_operator_start dist --progress-deadline 20 --scheduler-replicas 1)
wait_for "the operator serves revision 1" 120 serving 1
wait_for "its /metrics answers over HTTPS with the scraper's token" 20 metric_is leader 1

# --- a scrape whose review cannot complete -------------------------------------------------
kubectl -n default create serviceaccount late-scraper >/dev/null
kubectl create clusterrolebinding late-scraper --clusterrole=scheduler-policy-metrics-reader \
  --serviceaccount=default:late-scraper >/dev/null
LATE=$(sa_token default late-scraper)
check "a second scraper's token (never reviewed by the operator yet)" test -n "$LATE"
scrape_late() { curl -sk --max-time 30 -o "$T/late.body" -w '%{http_code} %{time_total}' \
  -H "Authorization: Bearer $LATE" "https://127.0.0.1:$(cat "$CLUSTER_DIR/pids/operator-dist.metrics-port")/metrics"; }

kill -STOP "$APISERVER"
scrape_late > "$T/late.result" &
SCRAPE=$!
sleep 0.5
probes_ok=0 slowest=0
for _ in $(seq 1 8); do
  r=$(curl -s --max-time 2 -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$HEALTH/healthz")
  [ "${r%% *}" = 200 ] && probes_ok=$((probes_ok + 1))
  slowest=$(awk -v a="$slowest" -v b="${r##* }" 'BEGIN { print (b > a ? b : a) }')
  sleep 0.4
done
still_waiting=no; alive "$SCRAPE" && still_waiting=yes
readyz=$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HEALTH/readyz")
wait "$SCRAPE"
kill -CONT "$APISERVER"
check_eq "the scrape was still waiting for its review after the probes" yes "$still_waiting"
check_eq "/healthz answered all 8 probes while the review was outstanding" 8 "$probes_ok"
check "... each within 0.5 s (slowest: ${slowest}s)" awk -v s="$slowest" 'BEGIN { exit !(s < 0.5) }'
check_eq "/readyz answered too (the loop, not the API, answers it)" 200 "$readyz"
check_match "the scrape with the API server unreachable got 500 after the review's bound" '^500 ([5-9]|1[0-9])\.' \
  "$(cat "$T/late.result")"
check "... and no metrics (nothing is served unreviewed)" bash -c "! grep -q scheduler_operator_ '$T/late.body'"
wait_for "the API server answers again" 30 kubectl get --raw /readyz
stack_put_policy "$(stack_weight_policy 3)"
wait_for "the operator reconciles a change at once afterwards (revision 2)" 30 written 2
wait_for "... which rolls out" 90 serving 2
check_eq "the late scraper is now allowed" 200 "$(scrape_late | cut -d' ' -f1)"

# --- a rollout that cannot become ready ------------------------------------------------------
FAILED0=$(metric rollouts_failed_total)
check_eq "no rollout failed so far" 0 "$FAILED0"
kubectl taint nodes -l node-role.kubernetes.io/master "$TAINT=true:NoSchedule" >/dev/null
stack_put_policy "$(stack_weight_policy 4)"
wait_for "the new policy is written as revision 3" 30 written 3
wait_for "its scheduler pod cannot be placed: the rollout fails and is counted" 90 metric_is rollouts_failed_total 1
check_match "... the revision is marked rollout-failed" '.' \
  "$(kubectl -n $OPNS get cm policy-scheduler-config-3 -o jsonpath='{.metadata.annotations.scheduler\.openshift\.io/rollout-failed}')"
kubectl taint nodes --all "$TAINT-" >/dev/null 2>&1

# --- the operator's RBAC removed ------------------------------------------------------------
E0=$(api_errors 4xx)
kubectl get clusterrolebinding scheduler-operator -o yaml > "$T/crb.yaml"
kubectl delete clusterrolebinding scheduler-operator >/dev/null
stack_put_policy "$(stack_weight_policy 5)"
grew() { [ "$(api_errors 4xx)" -gt "$E0" ]; }
wait_for "requests refused for lack of RBAC are counted as 4xx API errors" 60 grew
check_match "... by verb" 'code="4xx"\} [1-9]' "$(stack_operator_metrics dist | grep '^scheduler_operator_api_errors_total')"
check_eq "... and none is a server error or unanswered" 0 "$(( $(api_errors 5xx) + 0 ))"
kubectl apply -f "$T/crb.yaml" >/dev/null
wait_for "with the RBAC back, the change rolls out (revision 4)" 120 serving 4
finish
