#!/usr/bin/env bash
# Scheduler Framework profiles end to end: policy-scheduler runs a KubeSchedulerConfiguration
# (kubescheduler.config.k8s.io/v1beta1) with two profiles on three identical nodesim nodes.
#   (a) the start-up log lists each profile's plugins per extension point with weights;
#   (b) pods of the "pack" profile (NodeResourcesLeastAllocated disabled, MostAllocated
#       weight 5) all land on one node; pods of the "spread" profile (the v1.20 defaults)
#       spread over the nodes;
#   (c) a pod naming a third schedulerName is left alone;
#   (d) DefaultPreemption disabled at postFilter turns preemption off for that profile only;
#   (e) an argument v1.20 refuses (a resource group with a '/') stops the start, naming the
#       field with its line and column, before anything touches the cluster;
#   (f) each pod's Scheduled event is reported by its own profile (reportingController is
#       the pod's schedulerName, as v1.20 gives every profile its recorder);
#   (g) /metrics has v1.20's framework families with upstream's labels: every extension point
#       run per profile, each timed apart (PreFilter, Filter, PreScore, Score, Reserve,
#       Permit, PreBind, Bind, PostBind; PostFilter once a pod fits nowhere, for the profile
#       that preempts only), and the plugin calls of the cycles sampled for them (10 %, so 80
#       more pods make a cycle without a sample in all of them a 1-in-4,000 event); the
#       attempts by profile and result, and 1.32's attempt, SLI and attempts histograms.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
NS=sched-profiles
NODES=(sp-0 sp-1 sp-2)
NS_PID=
SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-profiles.log"

cleanup() {
  stop_pid "$SCHED_PID"
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  plane_nodes_cleanup profiles
  rm -rf "$T"
}
trap cleanup EXIT

plane_nodes_up profiles "three 4-cpu nodes" --counted --seconds 30 --nodes 3 --name-prefix sp --cpu 4 --memory 8Gi

PORT=$(free_port)
config() { # EXTRA_PLUGIN_CONFIG: the configuration file's text
  cat <<YAML
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$KUBECONFIG", qps: 1000, burst: 1000}
leaderElection: {leaderElect: false}
healthzBindAddress: 127.0.0.1:$PORT
metricsBindAddress: 127.0.0.1:$PORT
profiles:
- schedulerName: spread
- schedulerName: pack
  plugins:
    score:
      disabled: [{name: NodeResourcesLeastAllocated}]
      enabled: [{name: NodeResourcesMostAllocated, weight: 5}]
    postFilter:
      disabled: [{name: "*"}]
  pluginConfig:
  - name: NodeResourcesFit
    args: {${1:-}}
YAML
}

# ---- (e) refused at start, by name ----
config "ignoredResourceGroups: [example.com/dongle]" > "$T/refused.yaml"
# bounded: a configuration that is wrongly accepted would otherwise run in the foreground
timeout 30 "$BIN_DIR/policy-scheduler" --config "$T/refused.yaml" --secure-port 0 > "$T/refused.log" 2>&1
rc=$?
check "(e) a pluginConfig argument v1.20 refuses stops the start (exit $rc, not 124: the timeout)" \
  [ "$rc" -ne 0 -a "$rc" -ne 124 ]
check_match "(e) ... naming the field at its line and column" \
  '[0-9]+:[0-9]+: error: "example.com/dongle" is not a valid resource group' "$(cat "$T/refused.log")"

config "ignoredResources: [example.com/dongle]" > "$T/config.yaml"
"$BIN_DIR/policy-scheduler" --config "$T/config.yaml" --secure-port 0 >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "policy-scheduler with two profiles becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"

# ---- (a) the audit lines ----
check_match "(a) the pack profile's score plugins are logged with their weights" \
  "profile pack:.*score: NodeResourcesBalancedAllocation \(1\), ImageLocality \(1\), InterPodAffinity \(1\), NodeAffinity \(1\), NodePreferAvoidPods \(10000\), PodTopologySpread \(2\), TaintToleration \(1\), NodeResourcesMostAllocated \(5\)" \
  "$(tr '\n' ' ' < "$LOG")"
check_match "(a) ... and the spread profile's, the v1.20 defaults" \
  "profile spread:.*score: NodeResourcesBalancedAllocation \(1\), ImageLocality \(1\), InterPodAffinity \(1\), NodeResourcesLeastAllocated \(1\)" \
  "$(tr '\n' ' ' < "$LOG")"
# ---- (d) ----
check_match "(d) preemption is off for the pack profile only" \
  "preemption is disabled for profile pack" "$(cat "$LOG")"
check "(d) ... not for the spread profile" bash -c "! grep -q 'preemption is disabled for profile spread' '$LOG'"

kubectl create namespace "$NS" >/dev/null
pod_yaml() { # NAME SCHEDULER
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $NS}
spec:
  schedulerName: $2
  containers:
  - {name: app, image: profiles-app, resources: {requests: {cpu: 500m, memory: 256Mi}}}
YAML
}
pod_node() { kubectl -n "$NS" get pod "$1" -o jsonpath='{.spec.nodeName}'; }
all_bound() { local p; for p in "$@"; do [ -n "$(pod_node "$p")" ] || return 1; done; }

# ---- (b) ----
for i in 1 2 3 4; do pod_yaml "pack-$i" pack | kubectl apply -f - >/dev/null; done
wait_for "(b) the pack profile's four pods are bound" 60 all_bound pack-1 pack-2 pack-3 pack-4
pack_nodes=$(for i in 1 2 3 4; do pod_node "pack-$i"; echo; done | sort -u | grep -c .)
check_eq "(b) ... all on one node (MostAllocated, weight 5)" 1 "$pack_nodes"
for i in 1 2 3; do pod_yaml "spread-$i" spread | kubectl apply -f - >/dev/null; done
wait_for "(b) the spread profile's three pods are bound" 60 all_bound spread-1 spread-2 spread-3
spread_nodes=$(for i in 1 2 3; do pod_node "spread-$i"; echo; done | sort -u | grep -c .)
check "(b) ... on more than one node (LeastAllocated): $spread_nodes" [ "$spread_nodes" -ge 2 ]

# ---- (c) ----
pod_yaml other-1 somebody-else | kubectl apply -f - >/dev/null
pod_yaml spread-4 spread | kubectl apply -f - >/dev/null
wait_for "(c) a spread pod created after it is bound" 60 all_bound spread-4
check_eq "(c) the pod naming a third schedulerName is left alone" "" "$(pod_node other-1)"
check_eq "(c) ... without a PodScheduled condition from us" "" \
  "$(kubectl -n "$NS" get pod other-1 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}')"

# ---- (f) ----
event_lines() { # "reason pod reportingController" per Event of the namespace
  kubectl -n "$NS" get events.events.k8s.io \
    -o jsonpath='{range .items[*]}{.reason} {.regarding.name} {.reportingController}{"\n"}{end}' 2>/dev/null
}
have_scheduled_events() { local l p; l=$(event_lines); for p in "$@"; do grep -q "^Scheduled $p " <<<"$l" || return 1; done; }
PODS=(pack-1 pack-2 pack-3 pack-4 spread-1 spread-2 spread-3 spread-4)
wait_for "(f) every bound pod has its Scheduled event" 30 have_scheduled_events "${PODS[@]}"
lines=$(event_lines)
check_eq "(f) the pack profile's pods' events are reported by pack" "pack" \
  "$(awk '$2 ~ /^pack-/ {print $3}' <<<"$lines" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "(f) the spread profile's pods' events are reported by spread" "spread" \
  "$(awk '$2 ~ /^spread-/ {print $3}' <<<"$lines" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "(f) the pod left alone has no Event from us" "" "$(awk '$2 == "other-1"' <<<"$lines")"

# ---- (g) ----
for i in $(seq 1 80); do
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: tiny-%d, namespace: %s}\nspec:\n  schedulerName: spread\n' "$i" "$NS"
  printf '  containers:\n  - {name: app, image: profiles-app, resources: {requests: {cpu: 10m, memory: 16Mi}}}\n'
done > "$T/tiny.yaml"
kubectl apply -f "$T/tiny.yaml" >/dev/null
all_tiny_bound() { [ "$(kubectl -n "$NS" get pods -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}' | grep -c '^tiny-[0-9]* sp-')" = 80 ]; }
wait_for "(g) 80 more spread pods are bound" 120 all_tiny_bound
# a pod of each profile that fits nowhere: the spread profile's runs its PostFilter (the
# preemption, finding no victim), the pack profile's has none enabled
for p in spread pack; do
  pod_yaml "huge-$p" "$p" | sed 's/cpu: 500m/cpu: "64"/' | kubectl apply -f - >/dev/null
done
unschedulable() { [ "$(kubectl -n "$NS" get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')" = Unschedulable ]; }
both_unschedulable() { unschedulable huge-spread && unschedulable huge-pack; }
wait_for "(g) the two 64-cpu pods are found unschedulable" 60 both_unschedulable
# /metrics serves a snapshot published at most once a second: read it until the snapshot
# holds the spread pod's PostFilter and the pack pod's unschedulable attempt, or 5 s (the checks
# below then say what is missing)
for _ in $(seq 1 25); do
  metrics=$(curl -sf "http://127.0.0.1:$PORT/metrics")
  grep -q '^scheduler_framework_extension_point_duration_seconds_count{extension_point="PostFilter",status="Unschedulable",profile="spread"} [1-9]' <<<"$metrics" &&
    grep -q '^scheduler_schedule_attempts_total{profile="pack",result="unschedulable"} [1-9]' <<<"$metrics" && break
  sleep 0.2
done
for profile in spread pack; do
  check_match "(g) the $profile profile's PreFilter runs, labelled as v1.20 labels them" \
    "scheduler_framework_extension_point_duration_seconds_bucket\{extension_point=\"PreFilter\",status=\"Success\",profile=\"$profile\",le=\"0.0001\"\} [0-9]+" "$metrics"
  for point in Filter PreScore Score Reserve Permit PreBind Bind PostBind; do
    check_match "(g) ... its $point is timed apart" \
      "scheduler_framework_extension_point_duration_seconds_count\{extension_point=\"$point\",status=\"Success\",profile=\"$profile\"\} [1-9]" "$metrics"
  done
done
check_match "(g) the spread profile's PostFilter runs for its pod that fits nowhere, Unschedulable" \
  "scheduler_framework_extension_point_duration_seconds_count\{extension_point=\"PostFilter\",status=\"Unschedulable\",profile=\"spread\"\} [1-9]" "$metrics"
check_eq "(g) ... the pack profile, preemption disabled at postFilter, runs none" "" \
  "$(grep '^scheduler_framework_extension_point_duration_seconds_count{extension_point="PostFilter",.*profile="pack"' <<<"$metrics")"
check_match "(g) the extension point family has v1.20's buckets (0.0001 x 2^k, 12 of them)" \
  'le="0.2048"' "$(grep '^scheduler_framework_extension_point_duration_seconds_bucket' <<<"$metrics")"
check_match "(g) sampled plugin calls: a Filter plugin, labelled plugin, extension_point, status" \
  "scheduler_plugin_execution_duration_seconds_bucket\{plugin=\"(NodeResourcesFit|NodeUnschedulable|TaintToleration|NodeAffinity|NodePorts|NodeName)\",extension_point=\"Filter\",status=\"Success\",le=\"1e-05\"\} [0-9]+" "$metrics"
check_match "(g) ... and a Score plugin, with v1.20's buckets (1e-05 x 1.5^k, 20 of them)" \
  "scheduler_plugin_execution_duration_seconds_bucket\{plugin=\"[A-Za-z]+\",extension_point=\"Score\",status=\"Success\",le=\"0.02216837820053101\"\} [0-9]+" "$metrics"
check_match "(g) the attempts by profile and result, as upstream labels them" \
  'scheduler_schedule_attempts_total\{profile="spread",result="scheduled"\} [1-9]' "$metrics"
check_match "(g) ... and the pack profile's pod that fits nowhere" \
  'scheduler_schedule_attempts_total\{profile="pack",result="unschedulable"\} [1-9]' "$metrics"
check_match "(g) 1.32's attempt duration per profile and result (0.001 x 2^k)" \
  'scheduler_scheduling_attempt_duration_seconds_bucket\{profile="spread",result="scheduled",le="0.001"\} [0-9]+' "$metrics"
check_match "(g) 1.32's SLI histogram, by the attempts a bound pod took" \
  'scheduler_pod_scheduling_sli_duration_seconds_count\{attempts="1"\} [1-9]' "$metrics"
check_match "(g) ... and how many attempts it took (1, 2, 4, 8, 16)" \
  'scheduler_pod_scheduling_attempts_bucket\{le="16"\} [1-9]' "$metrics"
check "policy-scheduler is still running" alive "$SCHED_PID"
finish
