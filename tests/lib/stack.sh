# The product installed on the local control plane, for the demo and the end-to-end tests
# (sourced). Expects KUBECONFIG and CLUSTER_DIR from tests/cluster/up (or tools/with-cluster)
# and the built programs in $BIN_DIR (default build/default/bin).
#
#   stack_install                 kubectl apply -k: CRD, namespaces, RBAC, Services, the
#                                 monitoring objects (idempotent)
#   stack_nodesim_start           three simulated nodes (one control-plane), running the
#                                 scheduler image as a local program; a scheduler pod's
#                                 failed readiness probe is retried every
#                                 STACK_READINESS_RETRY_MS (200) until it is first ready, not
#                                 a period (5 s) later as a kubelet would: a rollout of the
#                                 two replicas then waits for the program, not for the
#                                 period (2-3 s instead of 10-11; empty: the kubelet's
#                                 period). A script that needs a rollout still under way
#                                 (an operator killed or frozen mid-rollout: 20, 21) freezes
#                                 nodesim (SIGSTOP, pids/nodesim.pid) meanwhile
#   stack_nodesim_stop            stops it and deletes its nodes (the scheduler tests that
#                                 follow count every node on the plane)
#   stack_operator_start NAME ... a scheduler-operator process with the operator service
#                                 account's own credentials (so the shipped RBAC applies),
#                                 under DAEMON_WRAP when e2e.sh set one
#   stack_operator_metrics NAME   that operator's /metrics, scraped over HTTPS with the token
#                                 of a service account bound to the shipped
#                                 scheduler-policy-metrics-reader (stack_scrape_token)
#   stack_stop_pid NAME           SIGTERM (then SIGKILL after STOP_WAIT_S, 10 s) a process
#                                 started here, by PID file
#   stack_operator_has_run_since_now NAME
#                                 returns once operator NAME has run a whole reconcile pass
#                                 begun after the call (before asserting nothing changed)
#   stack_put_policy FILE         creates or replaces ConfigMap openshift-config/
#                                 scheduler-policy with FILE as its policy.cfg
#   stack_weight_policy WEIGHT    prints the path of a valid variant of deploy/policy.cfg
#                                 (LeastRequestedPriority's weight set), written under $T
#   stack_reset_operator_state    removes what earlier scripts left of the operator and its
#                                 operand, then fails unless nothing of it is left
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BIN_DIR=$(cd "${BIN_DIR:-$ROOT/build/default/bin}" && pwd)
: "${CLUSTER_DIR:?needs CLUSTER_DIR (tests/cluster/up)}"
# Absolute: the kubeconfigs written below name files under it.
CLUSTER_DIR=$(cd "$CLUSTER_DIR" && pwd)
. "$CLUSTER_DIR/env"
. "$ROOT/tests/lib/sa-token.sh"
. "$ROOT/tests/lib/proc.sh"
SCHEDULER_IMAGE=policy-scheduler:latest
STACK_READINESS_RETRY_MS=${STACK_READINESS_RETRY_MS-200}

# Which scheduler the Deployment runs: STACK_SCHEDULER=bundled (policy-scheduler, the
# default: it runs every predicate and priority of the documented default policy) or upstream (kube-scheduler v1.20, which reads the same rendered files; the
# peer to compare with).
STACK_SCHEDULER=${STACK_SCHEDULER:-bundled}
if [ "$STACK_SCHEDULER" = bundled ]; then
  SCHEDULER_EXE="$BIN_DIR/policy-scheduler"
  SCHEDULER_ARGS=(--scheduler-command policy-scheduler
                  --scheduler-command '--bind-address=$(POD_IP)')
else
  SCHEDULER_EXE="$ROOT/tests/cluster/kube-scheduler-pod"
  SCHEDULER_ARGS=(--scheduler-command kube-scheduler --scheduler-readiness-path /healthz)
fi

# Installs through the shipped kustomization (tests/data/plane-install: deploy/ with the
# operator Deployment at zero replicas, the operator runs as a local process below), then
# the Prometheus operator's CRDs (copies, tests/data/monitoring/crds) and deploy/monitoring/.
stack_install() {
  kubectl apply -k "$ROOT/tests/data/plane-install" >/dev/null &&
  kubectl wait --for condition=Established --timeout=30s crd/schedulers.config.openshift.io \
    crd/schedulerpolicyoperators.operator.scheduler-policy.io >/dev/null &&
  kubectl apply -f "$ROOT/tests/data/monitoring/crds/" >/dev/null &&
  kubectl wait --for condition=Established --timeout=30s crd/servicemonitors.monitoring.coreos.com \
    crd/prometheusrules.monitoring.coreos.com >/dev/null &&
  kubectl apply -k "$ROOT/deploy/monitoring" >/dev/null
}

stack_nodesim_start() {
  "$BIN_DIR/nodesim" --nodes 3 --name-prefix node --control-plane 1 --zones 2 \
    --run "$SCHEDULER_IMAGE=$SCHEDULER_EXE" ${STACK_READINESS_RETRY_MS:+--readiness-retry-ms "$STACK_READINESS_RETRY_MS"} \
    --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
    --state-dir "$CLUSTER_DIR/nodesim" --pid-file "$CLUSTER_DIR/pids/nodesim.pid" "$@" \
    >> "$CLUSTER_DIR/logs/nodesim.log" 2>&1 &
  local i
  for i in $(seq 1 150); do
    [ "$(kubectl get nodes --no-headers 2>/dev/null | grep -c ' Ready ')" -ge 3 ] && return 0
    sleep 0.2
  done
  echo "stack: nodesim nodes did not become Ready" >&2
  return 1
}

stack_nodesim_stop() {
  stack_stop_pid nodesim
  kubectl delete node node-0 node-1 node-2 --ignore-not-found --wait=false >/dev/null 2>&1
  kubectl delete lease -n kube-node-lease node-0 node-1 node-2 --ignore-not-found --wait=false >/dev/null 2>&1
  return 0
}

# Writes a kubeconfig with the operator service account's token (no admin rights).
stack_operator_kubeconfig() {
  local out="$CLUSTER_DIR/operator.kubeconfig"
  sa_kubeconfig openshift-kube-scheduler-operator scheduler-operator "$out" || return 1
  echo "$out"
}

# stack_operator_start NAME [extra operator args]: prints the health port (plain HTTP); the
# HTTPS /metrics port goes to $CLUSTER_DIR/pids/operator-NAME.metrics-port.
stack_operator_start() {
  local name=$1 kc port sport; shift
  kc=$(stack_operator_kubeconfig) || return 1
  port=$(python3 "$ROOT/tests/lib/free-port.py")
  sport=$(python3 "$ROOT/tests/lib/free-port.py")
  echo "$sport" > "$CLUSTER_DIR/pids/operator-$name.metrics-port"
  ${DAEMON_WRAP[@]+"${DAEMON_WRAP[@]}"} \
  "$BIN_DIR/scheduler-operator" --kubeconfig "$kc" --listen "127.0.0.1:$port" --secure-listen "127.0.0.1:$sport" \
    --identity "$name" --scheduler-image "$SCHEDULER_IMAGE" "${SCHEDULER_ARGS[@]}" "$@" \
    >> "$CLUSTER_DIR/logs/operator-$name.log" 2>&1 &
  echo $! > "$CLUSTER_DIR/pids/operator-$name.pid"
  echo "$port"
}

# stack_scrape_token: prints the token of service account default/metrics-scraper, bound
# to the shipped ClusterRole scheduler-policy-metrics-reader (both created once per plane;
# the token is kept per start of the plane: under its API server's process id).
stack_scrape_token() {
  local f
  f="$CLUSTER_DIR/scrape-token.$(cat "$CLUSTER_DIR/pids/kube-apiserver.pid")"
  if [ ! -s "$f" ]; then
    kubectl -n default get serviceaccount metrics-scraper >/dev/null 2>&1 ||
      kubectl -n default create serviceaccount metrics-scraper >/dev/null || return 1
    kubectl get clusterrolebinding metrics-scraper >/dev/null 2>&1 ||
      kubectl create clusterrolebinding metrics-scraper --clusterrole=scheduler-policy-metrics-reader \
        --serviceaccount=default:metrics-scraper >/dev/null || return 1
    rm -f "$CLUSTER_DIR"/scrape-token.*
    ( umask 077; sa_token default metrics-scraper > "$f" ) || { rm -f "$f"; return 1; }
  fi
  cat "$f"
}

# stack_operator_metrics NAME: the operator NAME's /metrics (HTTPS, bearer token).
stack_operator_metrics() {
  local token
  token=$(stack_scrape_token) || return 1
  curl -sk --max-time 10 -H "Authorization: Bearer $token" \
    "https://127.0.0.1:$(cat "$CLUSTER_DIR/pids/operator-$1.metrics-port")/metrics"
}

stack_stop_pid() {
  local f="$CLUSTER_DIR/pids/$1.pid" pid
  pid=$(cat "$f" 2>/dev/null) || return 0
  stop_pid "$pid"
  rm -f "$f"
}

# stack_reset_operator_state: removes what earlier scripts on this plane may have left of the
# operator and its operand (the SchedulerPolicyOperator and Scheduler "cluster", the
# Deployment, its revisions and pods, the policy ConfigMap, the operator's Lease, the
# ClusterOperator CRD, the operator's and the Scheduler's Events), then looks: it fails,
# naming what is still there, when a delete failed or anything remains after
# STACK_RESET_SECONDS (30). Every delete runs, whatever the ones before it did; none of
# their statuses is lost.
stack_reset_operator_state() {
  local ns=openshift-kube-scheduler opns=openshift-kube-scheduler-operator failed=() left i
  _reset() { "$@" >/dev/null 2>&1 || failed+=("$*"); }
  _reset kubectl delete crd clusteroperators.config.openshift.io --ignore-not-found --wait=true --timeout=60s
  _reset kubectl delete crd apiservers.config.openshift.io --ignore-not-found --wait=true --timeout=60s
  _reset kubectl delete schedulerpolicyoperator cluster --ignore-not-found --wait=true --timeout=60s
  _reset kubectl delete scheduler cluster --ignore-not-found --wait=true --timeout=60s
  _reset kubectl -n $ns delete deployment policy-scheduler --ignore-not-found
  _reset kubectl -n $ns delete replicasets,configmaps -l app=policy-scheduler --ignore-not-found --wait=false
  _reset kubectl -n $ns delete pods -l app=policy-scheduler --ignore-not-found --grace-period=0 --force
  _reset kubectl -n openshift-config delete configmap scheduler-policy scheduler-config --ignore-not-found
  _reset kubectl -n $opns delete lease scheduler-operator-lock --ignore-not-found
  _reset kubectl -n $opns delete events --all
  _reset kubectl delete events -A --field-selector involvedObject.kind=Scheduler
  unset -f _reset
  if [ ${#failed[@]} -gt 0 ]; then
    printf 'stack: failed: %s\n' "${failed[@]}" >&2
    return 1
  fi
  for i in $(seq 1 $(( ${STACK_RESET_SECONDS:-30} * 5 ))); do
    left=$(stack_operator_leftovers)
    [ -z "$left" ] && return 0
    # a ReplicaSet the garbage collector had not reached yet may have made a pod again
    kubectl -n $ns delete pods -l app=policy-scheduler --ignore-not-found --grace-period=0 --force >/dev/null 2>&1
    sleep 0.2
  done
  echo "stack: still there after ${STACK_RESET_SECONDS:-30} s:" $left >&2
  return 1
}

# stack_operator_leftovers: prints what stack_reset_operator_state removes that is still
# there (kind/name, one a line); nothing when the plane is clean. Fails when it cannot look.
stack_operator_leftovers() {
  local ns=openshift-kube-scheduler
  {
    kubectl get crd -o name | grep -x 'customresourcedefinition.apiextensions.k8s.io/clusteroperators.config.openshift.io'
    kubectl get schedulerpolicyoperators,schedulers -o name
    kubectl -n $ns get deployments,replicasets,configmaps,pods -l app=policy-scheduler -o name
    kubectl -n $ns get deployment policy-scheduler -o name --ignore-not-found
    kubectl -n openshift-config get configmap scheduler-policy -o name --ignore-not-found
    kubectl -n openshift-kube-scheduler-operator get lease scheduler-operator-lock -o name --ignore-not-found
  } 2>&1 | grep -v -e '^$' -e '^No resources found' | sort -u
  # grep's status is 1 when nothing is left: that is success here; a kubectl error prints
  # a line, which counts as left.
  return 0
}

# stack_operator_passes NAME: how many reconcile passes the operator NAME has finished
# (scheduler_operator_reconcile_total, both results).
stack_operator_passes() {
  stack_operator_metrics "$1" | awk '/^scheduler_operator_reconcile_total\{/ { n += $2 } END { if (NR) print n + 0 }'
}

# stack_operator_has_run_since_now NAME [SECONDS]: returns once the operator NAME has run a
# whole reconcile pass that started after this call, so that whatever was changed before
# the call has been seen ("nothing happened" can be asserted then, not after a guess of a
# sleep). Passes are sequential: after a pass that ended after the call, the next one
# started after the call; each wait is made to happen by touching the Scheduler (an
# annotation: every Scheduler event queues a pass). Fails after SECONDS (30).
stack_operator_has_run_since_now() {
  local name=$1 secs=${2:-30} n0 i round
  for round in 1 2; do
    n0=$(stack_operator_passes "$name") || return 1
    [ -n "$n0" ] || { echo "stack: no reconcile_total from operator $name" >&2; return 1; }
    kubectl annotate scheduler cluster --overwrite \
      "scheduler-policy.io/e2e-poke=$(date +%s%N)" >/dev/null || return 1
    for i in $(seq 1 $((secs * 5))); do
      [ "$(stack_operator_passes "$name")" -gt "$n0" ] 2>/dev/null && break
      sleep 0.2
    done
    [ "$(stack_operator_passes "$name")" -gt "$n0" ] 2>/dev/null ||
      { echo "stack: operator $name ran no pass in ${secs}s" >&2; return 1; }
  done
}

stack_put_policy() {
  kubectl create configmap -n openshift-config scheduler-policy --from-file=policy.cfg="$1" \
    --dry-run=client -o yaml | kubectl apply --request-timeout=10s -f - >/dev/null
}

stack_weight_policy() {
  sed "s/{\"name\" : \"LeastRequestedPriority\", \"weight\" : 1}/{\"name\" : \"LeastRequestedPriority\", \"weight\" : $1}/" \
    "$ROOT/deploy/policy.cfg" > "${T:?stack_weight_policy needs T}/w$1.cfg"
  echo "$T/w$1.cfg"
}

# stack_stop_operators: stops every operator process the script started (pids/operator-*.pid),
# one it stopped (SIGSTOP) included.
stack_stop_operators() {
  local p
  for p in "$CLUSTER_DIR"/pids/operator-*.pid; do
    [ -e "$p" ] || continue
    kill -CONT "$(cat "$p")" 2>/dev/null
    stack_stop_pid "$(basename "$p" .pid)"
  done
  return 0
}

# The Scheduler "cluster" as the operator reports it, for the scripts' checks and waits
# (a script may define its own variant after sourcing this file):
#   revision                its .status.revision: the revision serving (it moves once the
#                           rollout completes)
#   condition TYPE [FIELD]  FIELD (default status) of its condition TYPE
#   settled                 Progressing False and Available True
#   serving REV             settled, at revision REV
#   written REV             revision REV's ConfigMap (policy-scheduler-config-REV) exists
revision() { kubectl get scheduler cluster -o jsonpath='{.status.revision}'; }
condition() { kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"$1\")].${2:-status}}"; }
settled() { [ "$(condition Progressing)" = False ] && [ "$(condition Available)" = True ]; }
serving() { settled && [ "$(revision)" = "$1" ]; }
written() { kubectl -n openshift-kube-scheduler get configmap "policy-scheduler-config-$1" >/dev/null 2>&1; }
