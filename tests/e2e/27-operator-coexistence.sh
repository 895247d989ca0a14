#!/usr/bin/env bash
# Never two default schedulers: upstream kube-scheduler v1.20 runs as default-scheduler and
# holds the Lease kube-system/kube-scheduler, as on a kubeadm control plane. The operator
# (with the shipped RBAC) sees it, reports Degraded=True reason ConflictingScheduler naming
# the holder, and creates no scheduler Deployment; once kube-scheduler stops and its Lease
# expires, the guard clears and the bundled scheduler rolls out. With
# --scheduler-shared-lease the bundled scheduler elects on that same Lease: the operator
# rolls it out beside a running kube-scheduler, and only the Lease holder schedules.
# Forged Scheduled Events (last observed in 2099, about a node the cluster does not have)
# hold nothing, while kube-scheduler's genuine ones do.
# Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/stack-script.sh"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir)
UP_PID=
LOG_UP="$CLUSTER_DIR/logs/kube-scheduler-coexistence.log"
NS=coexist
# kube-scheduler v1.20's own Lease (its defaults), with short timings for the test
LE=(--leader-elect=true --leader-elect-resource-name=kube-scheduler --leader-elect-resource-namespace=kube-system
    --leader-elect-resource-lock=leases --leader-elect-lease-duration=4s --leader-elect-renew-deadline=3s
    --leader-elect-retry-period=1s)

reset_operand() {
  kubectl -n openshift-kube-scheduler delete deployment policy-scheduler --ignore-not-found --wait=true
  kubectl -n openshift-kube-scheduler delete configmaps -l app=policy-scheduler --ignore-not-found
  kubectl delete scheduler cluster --ignore-not-found
  kubectl -n kube-system delete lease kube-scheduler --ignore-not-found
} >/dev/null 2>&1
cleanup() {
  stop_pid "$UP_PID"
  stack_nodesim_stop
  # kube-scheduler's Scheduled events would keep the next script's operator guarded for the
  # guard's 120 s window: they go now, not when the namespace controller gets to them
  kubectl -n "$NS" delete events --all >/dev/null 2>&1
  # and so do those of the scheduler pods kube-scheduler placed while it led
  # (openshift-kube-scheduler): left, they held 28's first rollout for 100 s
  api_delete $(kubectl get events.events.k8s.io -A -o json 2>/dev/null | jq -r '.items[]
    | select(.reason == "Scheduled" and (.reportingInstance // "" | startswith("default-scheduler-")))
    | "/apis/events.k8s.io/v1/namespaces/\(.metadata.namespace)/events/\(.metadata.name)"')
  kubectl delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1
  reset_operand
}

start_upstream() {
  "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" "${LE[@]}" --secure-port=0 --port=0 --v=2 \
    >> "$LOG_UP" 2>&1 &
  UP_PID=$!
}
holder() { kubectl -n kube-system get lease kube-scheduler -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
# kube-scheduler's identity is HOST_UUID; the bundled scheduler's POD_16HEX
held_by_upstream() { [[ $(holder) =~ _[0-9a-f]{8}-[0-9a-f]{4}- ]] || { echo "holder: $(holder)"; return 1; }; }
held_by_ours() { [[ $(holder) =~ ^policy-scheduler-.*_[0-9a-f]{16}$ ]] || { echo "holder: $(holder)"; return 1; }; }
cond() { kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"$1\")].$2}" 2>/dev/null; }
degraded_by_conflict() { [ "$(cond Degraded status) $(cond Degraded reason)" = "True ConflictingScheduler" ] || { cond Degraded message; return 1; }; }
not_degraded() { [ "$(cond Degraded status)" = False ] || { cond Degraded message; return 1; }; }
no_deployment() { ! kubectl -n openshift-kube-scheduler get deployment policy-scheduler >/dev/null 2>&1; }
settled() { [ "$(cond Progressing status)" = False ] && [ "$(cond Available status)" = True ]; }
bound() { [ -n "$(kubectl -n "$NS" get pod "$1" -o jsonpath='{.spec.nodeName}' 2>/dev/null)" ]; }
scheduled_by() { kubectl get events.events.k8s.io -n "$NS" --field-selector reason=Scheduled \
  -o jsonpath="{range .items[?(@.regarding.name==\"$1\")]}{.reportingInstance}{end}"; }
make_pod() {
  kubectl -n "$NS" run "$1" --image=registry.k8s.io/pause:3.2 --restart=Never \
    --overrides='{"spec":{"tolerations":[{"operator":"Exists"}]}}' >/dev/null
}

reset_operand
setup "CRD, namespaces and RBAC install" stack_install
setup "nodesim brings up three Ready nodes" stack_nodesim_start
kubectl create namespace "$NS" >/dev/null 2>&1

# --- the guard trips, and nothing rolls out beside kube-scheduler ------------------------
start_upstream
wait_for "kube-scheduler v1.20 takes the Lease kube-system/kube-scheduler" 30 held_by_upstream
stack_operator_start a --progress-deadline 120 > "$T/port-a"
wait_for "the operator reports Degraded=True reason ConflictingScheduler" 60 degraded_by_conflict
check_match "... naming the Lease holder and the way out" \
  "Lease kube-system/kube-scheduler is held by \"$(holder)\".*--scheduler-shared-lease" "$(cond Degraded message)"
check "... the operator has run a whole pass since" stack_operator_has_run_since_now a
check "... and creates no scheduler Deployment while it lasts" no_deployment
check_match "the operator's log says what it found" 'Another default-scheduler is active' \
  "$(cat "$CLUSTER_DIR/logs/operator-a.log")"

# --- the guard clears when kube-scheduler stops -----------------------------------------
stop_pid "$UP_PID"; UP_PID=
wait_for "once kube-scheduler's Lease expires, Degraded goes back to False" 40 not_degraded
wait_for "... and the bundled scheduler rolls out and becomes Available" 120 settled

# --- forged Scheduled Events hold nothing ------------------------------------------------
# Anyone who may create Events in some namespace can write these: "default-scheduler"
# reporting from a foreign instance, last observed in 2099; and one about a pod on a node
# this cluster does not have, timed now.
forge_event() { # NAME NOTE-NODE EVENT-TIME LAST-OBSERVED
  kubectl apply -f - >/dev/null <<EOF
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: $1, namespace: default}
eventTime: "$3"
series: {count: 2, lastObservedTime: "$4"}
reason: Scheduled
action: Binding
type: Normal
reportingController: default-scheduler
reportingInstance: default-scheduler-forger
regarding: {kind: Pod, namespace: default, name: forged-pod}
note: Successfully assigned default/forged-pod to $2
EOF
}
now_micro() { date -u +%Y-%m-%dT%H:%M:%S.000000Z; }
check "a forged Scheduled Event last observed in 2099 is accepted by the API server" \
  forge_event forged-future node-0 "$(now_micro)" 2099-01-01T00:00:00.000000Z
check "a forged Scheduled Event naming a node this cluster does not have is accepted" \
  forge_event forged-elsewhere no-such-node "$(now_micro)" "$(now_micro)"
# Nothing must follow: asserted once the operator has run two whole passes begun after both
# Events were created (its guard reads them on every pass), not after a guessed sleep.
check "... the operator has run a whole pass since" stack_operator_has_run_since_now a
check "... neither holds the rollout: Degraded is still False" not_degraded
check_eq "... and the operator's log never says another scheduler is active" "0" \
  "$(grep -c 'Another default-scheduler is active.*forger' "$CLUSTER_DIR/logs/operator-a.log")"
kubectl -n default delete events.events.k8s.io forged-future forged-elsewhere --ignore-not-found >/dev/null
stack_stop_pid operator-a

# --- while it runs: kube-scheduler starts beside the bundled scheduler -----------------
start_upstream
wait_for "a kube-scheduler started later takes its (free) Lease" 30 held_by_upstream
stack_operator_start b --progress-deadline 120 > "$T/port-b"
wait_for "the operator running the bundled scheduler reports the conflict too" 60 degraded_by_conflict

# --- the way out: the shared Lease --------------------------------------------------------
stack_stop_pid operator-b
stack_operator_start c --progress-deadline 120 --scheduler-shared-lease true > "$T/port-c"
wait_for "with --scheduler-shared-lease the conflict no longer holds the rollout" 60 not_degraded
wait_for "the revision electing on kube-system/kube-scheduler rolls out" 150 settled
check_match "the rendered configuration names upstream's Lease" \
  'resourceNamespace: kube-system.*resourceName: kube-scheduler' \
  "$(kubectl -n openshift-kube-scheduler get cm -l app=policy-scheduler -o jsonpath='{.items[-1:].data.config\.yaml}' | tr '\n' ' ')"
check "kube-scheduler still holds the Lease: the bundled scheduler waits" held_by_upstream
make_pod up-1
wait_for "a pod is bound while kube-scheduler leads" 30 bound up-1
check_match "... by kube-scheduler" '^default-scheduler-' "$(scheduled_by up-1)"
stop_pid "$UP_PID"; UP_PID=
wait_for "when kube-scheduler stops, a bundled scheduler pod takes the Lease" 30 held_by_ours
make_pod ours-1
wait_for "a pod is bound after the hand-over" 30 bound ours-1
check_match "... by the bundled scheduler, the Lease holder" '^policy-scheduler-.*_[0-9a-f]{16}$' "$(scheduled_by ours-1)"
check "the shared Lease keeps Degraded False" not_degraded

# --- the other sign: Scheduled events from another instance --------------------------------
# The Lease is now held by a bundled scheduler pod; kube-scheduler's Scheduled event for
# up-1 is less than two minutes old. Without the shared Lease the operator sees it.
stack_operator_stop_all() { for p in "$CLUSTER_DIR"/pids/operator-*.pid; do [ -e "$p" ] && stack_stop_pid "$(basename "$p" .pid)"; done; }
stack_operator_stop_all
dep_rev() { kubectl -n openshift-kube-scheduler get deployment policy-scheduler -o jsonpath='{.spec.template.metadata.annotations.scheduler\.openshift\.io/revision}'; }
dep_before=$(dep_rev)
stack_operator_start d --progress-deadline 120 > "$T/port-d"
wait_for "without the shared Lease, kube-scheduler's recent Scheduled event trips the guard" 60 degraded_by_conflict
check_match "... and the message names the reporting instance" 'Scheduled Event.* reported by "default-scheduler-' \
  "$(cond Degraded message)"
check "... the operator has run a whole pass since" stack_operator_has_run_since_now d
check_match "... and the Deployment keeps the shared-Lease revision meanwhile" "^${dep_before:-none}\$" "$(dep_rev)"
finish
