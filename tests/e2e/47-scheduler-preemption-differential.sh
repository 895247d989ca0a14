#!/usr/bin/env bash
# Differential test of preemption against upstream kube-scheduler v1.20: three simulated
# 4-cpu nodes (tests/data/sched-preempt-diff/nodes.json) and, per scenario, existing pods
# bound by name (spec.nodeName, priorities from PriorityClasses), PodDisruptionBudgets, and
# then preemptors created one at a time, each waited for until the scheduler reports it
# unschedulable (and, when it nominates it, until it is bound). Each scheduler in turn runs
# every scenario under its own name; per preemptor the nominated node, the node it is bound
# to and its victims (the pods deleted for it), and per scenario the Preempted and
# FailedScheduling events (each distinct message once) and where every pod ended up, must
# be identical. The scenarios (one
# directory each, `steps` in the small language below, the expected victims derived in its
# comments) cover a single node, each of v1.20's node-choice criteria in turn (PDB violations,
# highest victim priority, sum of priorities, number of victims, latest start), a PDB that
# must be violated and one that can be respected, victims of several priorities (reprieve
# order), inter-pod anti-affinity that only a victim's removal satisfies, preemptionPolicy
# Never, and a nominated pod keeping its room from a lower-priority pod that arrives later.
#
# Upstream draws the offset where its candidate search starts at random and breaks a full
# tie (criterion 6) by Go map order: every scenario has fewer than 100 candidate nodes (so
# every potential node is evaluated whatever the offset) and no full tie.
#
# steps:
#   pod NAME NODE CLASS CPU [LABELS|-] [hold]   a pod bound to NODE (hold: a finalizer keeps
#                                               it terminating until `release`)
#   pdb NAME SELECTOR MIN_AVAILABLE             a policy/v1beta1 PodDisruptionBudget, waited
#                                               for until the disruption controller counted it
#   sleep N                                     (start times are whole seconds)
#   preemptor NAME CLASS CPU host=N|hosts=A,B [anti=K=V]
#   release                                     drop the finalizers
#   settle NAME                                 wait until NAME is bound (or 20 s); record it
#   expect NAME nominated=NODE|- victims=A,B|-  what the comments derive for preemptor NAME
#                                               (victims in name order): a round whose
#                                               scheduler does otherwise fails, so a
#                                               scenario where neither scheduler preempts
#                                               cannot pass by agreeing
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir)
DATA=tests/data/sched-preempt-diff
NODES=($(jq -r '.[].name' "$DATA/nodes.json"))
NS_PID=
SCHED_PID=
ONLY=${PREEMPT_DIFF_ONLY:-}

cleanup() {
  stop_pid "$SCHED_PID"
  {
    for ns in $(kubectl get ns -o name | grep '^namespace/pd-' | cut -d/ -f2); do
      kubectl -n "$ns" get pods -o name | xargs -r kubectl -n "$ns" patch --type merge -p '{"metadata":{"finalizers":null}}'
      kubectl delete ns "$ns" --wait=false
    done
    kubectl delete -f "$DATA/classes.yaml" --ignore-not-found
  } >/dev/null 2>&1
  plane_nodes_cleanup pdiff
  rm -rf "$T"
}
trap cleanup EXIT

plane_nodes_up pdiff "the ${#NODES[@]} nodes of the comparison" --nodes-file "$DATA/nodes.json"
setup "the scenarios' PriorityClasses are created (one at -2^31, one with preemptionPolicy Never)" \
  kubectl apply -f "$DATA/classes.yaml"

start_scheduler() { # WHO LOG
  local who=$1 log=$2 port
  port=$(free_port)
  if [ "$who" = upstream ]; then
    "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$DATA/policy.json" \
      --scheduler-name pd-upstream --leader-elect=false --address 127.0.0.1 --port "$port" \
      --secure-port 0 --kube-api-qps 1000 --kube-api-burst 1000 -v 5 > "$log" 2>&1 &
  else
    "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$DATA/policy.json" \
      --scheduler-name pd-ours --leader-elect=false --bind-address 127.0.0.1 --port "$port" --secure-port 0 \
      -v 5 > "$log" 2>&1 &
  fi
  SCHED_PID=$!
  plane_await_healthz "$SCHED_PID" "$port" "$who scheduler" "$log"
}

# The objects go to the API server as JSON through curl (tests/lib/e2e.sh's api): a
# kubectl process per create and per poll would make most of the script's CPU time.
pod_json() { # NS NAME NODE CLASS CPU LABELS HOLD
  jq -nc --arg ns "$1" --arg name "$2" --arg node "$3" --arg class "$4" --arg cpu "$5" \
    --arg labels "${6:--}" --arg hold "${7:-}" '
    {apiVersion: "v1", kind: "Pod",
     metadata: ({name: $name, namespace: $ns}
       + (if $labels != "-" then {labels: {($labels | split("=")[0]): ($labels | split("=")[1])}} else {} end)
       + (if $hold == "hold" then {finalizers: ["example.com/hold"]} else {} end)),
     spec: {nodeName: $node, priorityClassName: $class, terminationGracePeriodSeconds: 0,
            containers: [{name: "app", image: "pdiff/app", resources: {requests: {cpu: $cpu, memory: "64Mi"}}}]}}'
}

preemptor_json() { # NS NAME CLASS CPU SCHED WHERE [ANTI]
  jq -nc --arg ns "$1" --arg name "$2" --arg class "$3" --arg cpu "$4" --arg sched "$5" \
    --arg where "$6" --arg anti "${7:-}" '
    {apiVersion: "v1", kind: "Pod", metadata: {name: $name, namespace: $ns},
     spec: ({schedulerName: $sched, priorityClassName: $class, terminationGracePeriodSeconds: 0,
             containers: [{name: "app", image: "pdiff/app", resources: {requests: {cpu: $cpu, memory: "64Mi"}}}]}
       + (if ($where | startswith("host=")) then {nodeSelector: {"kubernetes.io/hostname": ($where | ltrimstr("host="))}}
          else {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
                 {matchExpressions: [{key: "kubernetes.io/hostname", operator: "In",
                                      values: ($where | ltrimstr("hosts=") | split(","))}]}]}}}} end))}
     | if $anti != "" then
         ($anti | ltrimstr("anti=")) as $kv
         | .spec.affinity.podAntiAffinity = {requiredDuringSchedulingIgnoredDuringExecution: [
             {labelSelector: {matchLabels: {($kv | split("=")[0]): ($kv | split("=")[1])}},
              topologyKey: "kubernetes.io/hostname"}]}
       else . end'
}

# until_ok SECONDS CMD...: polls CMD every 0.1 s until it succeeds or SECONDS have passed
# (by the clock: a count of polls would stretch with every slow request on a loaded machine)
until_ok() { local end=$((SECONDS + $1)); shift; until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.1; done; }
pods_path() { echo "/api/v1/namespaces/$1/pods"; }
# pod_jq NS POD FILTER: FILTER (jq -r) of the pod; fails when it cannot be read
pod_jq() { api_get "$(pods_path "$1")/$2" | jq -r "$3"; }
running() { [ -n "$(pod_jq "$1" "$2" '.status.startTime // empty')" ]; }
pdb_jq() { api_get "/apis/policy/v1beta1/namespaces/$1/poddisruptionbudgets/$2" | jq -r "$3"; }
pdb_counted() { [ "$(pdb_jq "$1" "$2" '.status.observedGeneration != null and (.status.expectedPods // 0) >= 1')" = true ]; }
# the pods alive (no deletionTimestamp), one name a line
live_pods() { api_get "$(pods_path "$1")" | jq -r '.items[] | select(.metadata.deletionTimestamp == null) | .metadata.name' | sort; }
# the scheduler has decided: PodScheduled False, or bound
failed() { [ "$(pod_jq "$1" "$2" '(.status.conditions // [] | map(select(.type == "PodScheduled")) | .[0].status) == "False"
  or (.spec.nodeName // "") != ""')" = true ]; }
no_pods() { [ "$(api_get "$(pods_path "$1")" | jq '.items | length')" = 0 ]; }
is_bound() { [ -n "$(pod_jq "$1" "$2" '.spec.nodeName // empty')" ]; }
# drop_finalizers NS: every pod of NS loses its finalizers (the held ones may then go)
drop_finalizers() {
  local p
  for p in $(api_get "$(pods_path "$1")" | jq -r '.items[] | select(.metadata.finalizers) | .metadata.name'); do
    api_merge "$(pods_path "$1")/$p" '{"metadata":{"finalizers":null}}' >/dev/null
  done
}
# events NS: the round's Preempted and FailedScheduling events, each distinct message once
events_of() {
  api_get "/api/v1/namespaces/$1/events" |
    jq -r --arg ns "$1" '.items[] | select(.reason == "Preempted" or .reason == "FailedScheduling") |
      "event \(.reason) \(.involvedObject.name): \(.message | gsub($ns; "NS"))"' | sort -u
}
# expected_events_in NS OUT: succeeds once the events the round's records imply are all
# there: a FailedScheduling for each preemptor that was nominated or not bound, a Preempted
# for each of its victims (the schedulers write them asynchronously)
expected_events_in() {
  local want got
  want=$(awk '$1 == "preemptor" && $3 ~ /^nominated=/ {
                p = $2; sub(/:$/, "", p)
                if ($3 != "nominated=-" || $4 == "bound=-") print "FailedScheduling " p }
              $1 == "preemptor" && $3 ~ /^victims=/ {
                v = $3; sub(/^victims=/, "", v); n = split(v, a, ",")
                for (i = 1; i <= n; i++) if (a[i] != "" && a[i] != "-") print "Preempted " a[i] }' "$2" | sort -u)
  got=$(events_of "$1" | awk '{ print $2, substr($3, 1, length($3) - 1) }' | sort -u)
  [ -z "$(comm -23 <(echo "$want") <(echo "$got") | grep .)" ]
}

# expect_met OUT UNMET NAME KEY=VALUE...: each KEY (nominated, victims) of preemptor NAME as
# recorded in OUT; a difference is a line in UNMET.
expect_met() {
  local out=$1 unmet=$2 name=$3 kv key want got; shift 3
  for kv in "$@"; do
    key=${kv%%=*} want=${kv#*=}
    case $key in
      nominated) got=$(sed -n "s/^preemptor $name: nominated=\([^ ]*\) bound=.*/\1/p" "$out") ;;
      victims) got=$(sed -n "s/^preemptor $name: victims=//p" "$out"); got=${got:--} ;;
      *) echo "expect $name: unknown key $key" >> "$unmet"; continue ;;
    esac
    [ "$got" = "$want" ] || echo "preemptor $name: expected $key=$want, got $key=${got:-(no record)}" >> "$unmet"
  done
}

# run_round SCENARIO WHO: WHO runs SCENARIO's steps; records in $T/SCENARIO-WHO.out. Fails,
# saying why, when a step could not run, an expectation is not met or the scheduler exited.
run_round() { # SCENARIO WHO
  local sc=$1 who=$2 ns="pd-${1%%-*}-$2" out="$T/$1-$2.out" log="$CLUSTER_DIR/logs/sched-pdiff-$1-$2.log"
  local unmet="$T/$1-$2.unmet"
  local verb a b c d e f before i nom node
  : > "$out"; : > "$unmet"
  printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"%s"}}' "$ns" | api_create /api/v1/namespaces >/dev/null ||
    return 1
  start_scheduler "$who" "$log" || return 1
  while read -r verb a b c d e f; do
    case $verb in
    ''|'#'*) continue ;;
    pod)
      pod_json "$ns" "$a" "$b" "$c" "$d" "${e:--}" "${f:-}" | api_create "$(pods_path "$ns")" >/dev/null ||
        echo "pod $a: create failed" >> "$out"
      until_ok 20 running "$ns" "$a" ;;
    pdb)
      jq -nc --arg ns "$ns" --arg name "$a" --arg sel "$b" --argjson min "$c" \
        '{apiVersion: "policy/v1beta1", kind: "PodDisruptionBudget", metadata: {name: $name, namespace: $ns},
          spec: {minAvailable: $min, selector: {matchLabels: {($sel | split("=")[0]): ($sel | split("=")[1])}}}}' |
        api_create "/apis/policy/v1beta1/namespaces/$ns/poddisruptionbudgets" >/dev/null ||
        echo "pdb $a: create failed" >> "$out"
      until_ok 20 pdb_counted "$ns" "$a"
      echo "pdb $a allows $(pdb_jq "$ns" "$a" '.status.disruptionsAllowed // ""')" >> "$out" ;;
    sleep) sleep "$a" ;;
    preemptor)
      before=$(live_pods "$ns")
      preemptor_json "$ns" "$a" "$b" "$c" "pd-$who" "$d" "${e:-}" | api_create "$(pods_path "$ns")" >/dev/null ||
        { echo "preemptor $a: create failed" >> "$out"; continue; }
      until_ok 30 failed "$ns" "$a"
      # Both schedulers write the nomination in the same status update as PodScheduled=False
      # (upstream's updatePod, after the victims' deletions): it is there once failed says so.
      nom=$(pod_jq "$ns" "$a" '.status.nominatedNodeName // empty')
      [ -z "$nom" ] || until_ok 5 is_bound "$ns" "$a"
      node=$(pod_jq "$ns" "$a" '.spec.nodeName // empty')
      echo "preemptor $a: nominated=${nom:--} bound=${node:--}" >> "$out"
      echo "preemptor $a: victims=$(comm -23 <(echo "$before") <(live_pods "$ns") | paste -sd, -)" >> "$out" ;;
    release) drop_finalizers "$ns" ;;
    settle)
      until_ok 20 is_bound "$ns" "$a"
      echo "settled $a: $(pod_jq "$ns" "$a" '"bound=\(.spec.nodeName // "") nominated=\(.status.nominatedNodeName // "")"')" >> "$out" ;;
    expect) expect_met "$out" "$unmet" "$a" $b $c $d ;;
    *) echo "unknown step: $verb" >> "$out" ;;
    esac
  done < "$DATA/$sc/steps"
  # (a pod bound at its first retry may have had its PodScheduled=False overwritten
  # already: the Events keep every message)
  until_ok 10 expected_events_in "$ns" "$out"
  events_of "$ns" >> "$out"
  api_get "$(pods_path "$ns")" |
    jq -r '.items[] | "final \(.metadata.name) \(.spec.nodeName // "-")\(if .metadata.deletionTimestamp then " deleting" else "" end)"' | sort >> "$out"
  alive "$SCHED_PID" || echo "the $who scheduler exited during the round (log: $log)" >> "$unmet"
  stop_pid "$SCHED_PID"
  SCHED_PID=
  grep -h 'create failed\|unknown step' "$out" >> "$unmet"
  drop_finalizers "$ns" 2>/dev/null
  api DELETE "$(pods_path "$ns")" -H 'Content-Type: application/json' --data '{"gracePeriodSeconds":0}' >/dev/null 2>&1
  api DELETE "/api/v1/namespaces/$ns" >/dev/null 2>&1
  until_ok 30 no_pods "$ns"
  [ -s "$unmet" ] && { cat "$unmet"; return 1; }
  return 0
}

# The checker's control: a round where the scheduler preempts nothing although the
# scenario expects it must fail.
fails() { ! "$@"; }
if [ -z "$ONLY" ]; then
  check "a round whose expected preemption does not happen fails (control: $DATA/control-no-preemption)" \
    fails run_round control-no-preemption ours
  check_match "the control names the unmet expectation" 'expected victims=a, got victims=-' \
    "$(cat "$T/control-no-preemption-ours.unmet")"
fi

for dir in "$DATA"/[0-9]*/; do
  sc=$(basename "$dir")
  [ -n "$ONLY" ] && [[ $sc != *$ONLY* ]] && continue
  for who in upstream ours; do
    check "$sc: run by $who" run_round "$sc" "$who"
  done
  check_eq "$sc: same nominations, victims, messages, events and placements" "" \
    "$(diff "$T/$sc-upstream.out" "$T/$sc-ours.out" | grep '^[<>]' | sed 's/^</upstream:/; s/^>/ours:    /')"
  check_eq "$sc: every step ran" "" "$(grep -h 'create failed\|unknown step' "$T/$sc"-*.out)"
  check_eq "$sc: every preemptor's nomination and victims are stated (expect)" "" \
    "$(awk '$1 == "preemptor" { p[$2] = 1 } $1 == "expect" { delete p[$2] } END { for (k in p) print k }' "$dir/steps")"
  sed 's/^/# /' "$T/$sc-ours.out"
done

finish
