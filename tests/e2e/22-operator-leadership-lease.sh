#!/usr/bin/env bash
# No silent waits: a scheduler-operator that cannot take its lease says so at the default
# verbosity, at error level, with what to do, and /readyz says why it is not leading:
# the lease namespace missing, then RBAC denying the lease. Once the cause is fixed it
# leads without a restart. And text from users cannot forge a log line: a predicate name
# carrying a newline and a fake klog header is logged escaped. Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/stack-script.sh"
cleanup() {
  kubectl delete namespace lease-later --ignore-not-found --wait=false >/dev/null 2>&1
}

readyz() { curl -s -w ' %{http_code}' "http://127.0.0.1:$1/readyz"; }
log_of() { cat "$CLUSTER_DIR/logs/operator-$1.log"; }

setup "CRD, namespaces and RBAC install" stack_install

# --- the lease namespace does not exist (admin credentials: nothing but the namespace is missing)
port=$(free_port)
"$BIN_DIR/scheduler-operator" --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$port" --secure-listen 127.0.0.1:0 --identity nons \
  --lease-namespace lease-later --scheduler-image "$SCHEDULER_IMAGE" >> "$CLUSTER_DIR/logs/operator-nons.log" 2>&1 &
echo $! > "$CLUSTER_DIR/pids/operator-nons.pid"
wait_for "a missing lease namespace is logged at error level by default" 20 \
  bash -c "grep -q '^E.*lease-later/scheduler-operator-lock.*not found.*create the namespace' '$CLUSTER_DIR/logs/operator-nons.log'"
wait_for "/readyz answers 503 and says why it does not lead" 10 \
  bash -c "readyz() { curl -s -w ' %{http_code}' http://127.0.0.1:$port/readyz; }; readyz | grep -q 'not leading: cannot acquire Lease lease-later/scheduler-operator-lock.* 503\$'"
sleep 5
check "the error is not repeated on every retry (once a minute at most)" \
  test "$(grep -c '^E.*lease-later/scheduler-operator-lock' "$CLUSTER_DIR/logs/operator-nons.log")" -le 2
kubectl create namespace lease-later >/dev/null
wait_for "once the namespace exists it leads, without a restart" 20 \
  bash -c "curl -s http://127.0.0.1:$port/readyz | grep -q 'ok (leader)'"

# --- RBAC denies the lease (the operator's own service account, in a namespace it has no Role in)
port2=$(stack_operator_start denied --lease-namespace default)
wait_for "a lease denied by RBAC is logged at error level by default" 20 \
  bash -c "grep -q '^E.*default/scheduler-operator-lock.*forbidden.*grant this service account' '$CLUSTER_DIR/logs/operator-denied.log'"
wait_for "... and /readyz says so" 10 \
  bash -c "curl -s -w ' %{http_code}' http://127.0.0.1:$port2/readyz | grep -q 'not leading: .*forbidden.* 503\$'"
stack_stop_pid operator-denied

# --- user text cannot forge a log line -------------------------------------------------------
printf '{"kind":"Policy","apiVersion":"v1","predicates":[{"name":"Bogus\\nE1121 07:08:09.000000 1 manager.c:1] forged line"}],"priorities":[]}' \
  > "$T/forge.cfg"
kubectl create configmap -n openshift-config forge-policy --from-file=policy.cfg="$T/forge.cfg" >/dev/null
kubectl patch Scheduler cluster --type=merge -p '{"spec":{"policy":{"name":"forge-policy"}}}' >/dev/null
wait_for "the policy with a newline in a predicate name is rejected" 30 \
  bash -c '[ "$(kubectl get scheduler cluster -o jsonpath="{.status.conditions[?(@.type==\"PolicyValid\")].status}")" = False ]'
wait_for "the operator logs the rejection" 10 bash -c "grep -q 'Bogus' '$CLUSTER_DIR/logs/operator-nons.log'"
check_eq "no log line starts with the forged header" "0" \
  "$(grep -c '^E1121 07:08:09.000000 1 manager.c:1\] forged' "$CLUSTER_DIR/logs/operator-nons.log")"
check "the name is logged escaped, on the line that mentions it" \
  grep -q 'Bogus\\nE1121 07:08:09.000000 1 manager.c:1\] forged line' "$CLUSTER_DIR/logs/operator-nons.log"
finish
