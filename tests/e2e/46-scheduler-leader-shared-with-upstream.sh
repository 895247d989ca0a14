#!/usr/bin/env bash
# policy-scheduler and upstream kube-scheduler v1.20 share one leader election: both run
# with the same --leader-elect-resource-name (and kube-scheduler's other leader-election
# flags) under one schedulerName, as during a rolling migration of a kubeadm control plane.
# Exactly one of them schedules at any time: every Scheduled event of a phase comes from the
# Lease holder (events.k8s.io reportingInstance: kube-scheduler reports "NAME-HOST", this
# scheduler its Lease identity "HOST_HEX"); the standby binds nothing. Killing the leader
# (SIGKILL: no release) hands the Lease to the other within the lease duration, and the
# other schedules from then on; both directions.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir)
NS=leader-shared
SCHED=shared-scheduler
LOCK=shared-scheduler-lock
NODES=(ls-0 ls-1)
NS_PID= OURS_PID= UP_PID=
LOG_OURS="$CLUSTER_DIR/logs/policy-scheduler-leader-shared.log"
LOG_UP="$CLUSTER_DIR/logs/kube-scheduler-leader-shared.log"
# the same leader-election flags for both, as kube-scheduler v1.20 spells them
LE=(--leader-elect=true --leader-elect-resource-name="$LOCK" --leader-elect-resource-namespace=kube-system
    --leader-elect-resource-lock=leases --leader-elect-lease-duration=4s --leader-elect-renew-deadline=3s
    --leader-elect-retry-period=1s)

cleanup_api() {
  kubectl delete namespace "$NS" --ignore-not-found --wait=false
  kubectl -n kube-system delete lease "$LOCK" --ignore-not-found
  kubectl delete node "${NODES[@]}" --ignore-not-found --wait=false
  kubectl delete lease -n kube-node-lease "${NODES[@]}" --ignore-not-found --wait=false
} >/dev/null 2>&1
cleanup() {
  stop_pid "$OURS_PID"
  stop_pid "$UP_PID"
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-leader-shared.pid"
  cleanup_api
  rm -rf "$T"
}
trap cleanup EXIT
cleanup_api

start_upstream() {
  "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" --scheduler-name "$SCHED" "${LE[@]}" \
    --secure-port=0 --port=0 --v=2 >> "$LOG_UP" 2>&1 &
  UP_PID=$!
}
OURS_PORT=$(free_port)
start_ours() {
  "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --scheduler-name "$SCHED" "${LE[@]}" \
    --bind-address=127.0.0.1 --secure-port=0 --port="$OURS_PORT" >> "$LOG_OURS" 2>&1 &
  OURS_PID=$!
}
# client-go's leader gauge, as kube-scheduler exports it
master_status() {
  curl -sf "http://127.0.0.1:$OURS_PORT/metrics" | sed -n "s/^leader_election_master_status{name=\"$LOCK\"} //p"
}
master_status_is() { [ "$(master_status)" = "$1" ]; }
holder() { kubectl -n kube-system get lease "$LOCK" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
# kube-scheduler's identity is HOST_UUID (dashes), this scheduler's HOST_16HEX
held_by_upstream() { [[ $(holder) =~ _[0-9a-f]{8}-[0-9a-f]{4}- ]] || { echo "holder: $(holder)"; return 1; }; }
held_by_ours() { [[ $(holder) =~ _[0-9a-f]{16}$ ]] || { echo "holder: $(holder)"; return 1; }; }

# create_pods PREFIX N: N small pods of the shared scheduler
create_pods() {
  local i
  for i in $(seq 1 "$2"); do
    cat <<EOF
---
apiVersion: v1
kind: Pod
metadata: {name: $1-$i, namespace: $NS, labels: {phase: $1}}
spec:
  schedulerName: $SCHED
  containers:
  - {name: app, image: ls-app, resources: {requests: {cpu: 10m, memory: 16Mi}}}
EOF
  done | kubectl apply -f - >/dev/null
}
all_bound() { # PREFIX N
  local n
  n=$(kubectl -n "$NS" get pods -l phase="$1" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c '^ls-')
  [ "$n" -eq "$2" ] || { echo "$n of $2 bound"; return 1; }
}
# reporters PREFIX: the reportingInstance of each Scheduled event of the phase's pods, sorted
reporters() {
  kubectl -n "$NS" get events.v1.events.k8s.io \
    -o jsonpath='{range .items[*]}{.reason} {.regarding.name} {.reportingInstance}{"\n"}{end}' |
    awk -v p="$1-" '$1 == "Scheduled" && index($2, p) == 1 { print $3 }' | sort | uniq -c
}
# only_from PREFIX N KIND: N Scheduled events for the phase, all from one reporter of KIND
only_from() {
  local out; out=$(reporters "$1")
  case "$3" in
    upstream) [[ $out =~ ^\ *$2\ $SCHED-[^_]+$ ]] ;;
    ours) [[ $out =~ ^\ *$2\ [^\ ]+_[0-9a-f]{16}$ ]] ;;
  esac || { echo "Scheduled events by reporter:"; echo "$out"; return 1; }
}

plane_nodes_up leader-shared "two nodes" --not-alone --nodes 2 --name-prefix ls
kubectl create namespace "$NS" >/dev/null

# Phase 1: kube-scheduler leads, policy-scheduler waits.
start_upstream
wait_for "kube-scheduler v1.20 takes the Lease kube-system/$LOCK" 30 held_by_upstream
start_ours
wait_for "policy-scheduler waits for the same Lease" 20 grep -q "waiting for the lease kube-system/$LOCK" "$LOG_OURS"
for b in 1 2 3; do create_pods up$b 4; sleep 1; done
for b in 1 2 3; do
  wait_for "batch $b: four pods bound" 60 all_bound up$b 4
  wait_for "batch $b: every Scheduled event from kube-scheduler, none from the standby" 30 only_from up$b 4 upstream
done
check "policy-scheduler, standing by, did not become leader" bash -c "! grep -q 'became leader' '$LOG_OURS'"
check_eq "its leader_election_master_status is 0" "0" "$(master_status)"
check_eq "the Lease never changed hands" "0" "$(kubectl -n kube-system get lease "$LOCK" -o jsonpath='{.spec.leaseTransitions}')"

# Phase 2: kill kube-scheduler; policy-scheduler takes over within the lease duration.
kill -KILL "$UP_PID"; wait "$UP_PID" 2>/dev/null; UP_PID=
t0=$(date +%s%N)
wait_for "policy-scheduler takes the Lease after kube-scheduler is killed" 20 held_by_ours
echo "# takeover after $(( ($(date +%s%N) - t0) / 1000000 )) ms (lease duration 4 s)"
check_match "and says so" "became leader" "$(cat "$LOG_OURS")"
wait_for "... and leader_election_master_status says 1" 10 master_status_is 1
create_pods ours 6
wait_for "six new pods bound" 60 all_bound ours 6
wait_for "every Scheduled event of them from policy-scheduler" 30 only_from ours 6 ours

# Phase 3: kube-scheduler comes back as the standby; killing policy-scheduler hands back.
start_upstream
sleep 3
create_pods ours2 4
wait_for "with kube-scheduler back as standby, four more pods bound" 60 all_bound ours2 4
wait_for "all by policy-scheduler" 30 only_from ours2 4 ours
check "policy-scheduler still holds the Lease" held_by_ours
kill -KILL "$OURS_PID"; wait "$OURS_PID" 2>/dev/null; OURS_PID=
wait_for "kube-scheduler takes the Lease back after policy-scheduler is killed" 30 held_by_upstream
create_pods up4 4
wait_for "four pods bound after the hand-back" 60 all_bound up4 4
wait_for "all by kube-scheduler" 30 only_from up4 4 upstream
scheduled_total() {
  kubectl -n "$NS" get events.v1.events.k8s.io -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}' | grep -c '^Scheduled$'
}
check_eq "one Scheduled event per pod: 26 pods, none scheduled twice" "26" "$(scheduled_total)"
check "policy-scheduler logged no failed binding" bash -c "! grep -q 'binding .* failed' '$LOG_OURS'"
check "kube-scheduler logged no failed binding" bash -c "! grep -qE 'Error scheduling pod|failed to bind|already assigned' '$LOG_UP'"

finish
