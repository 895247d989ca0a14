#!/usr/bin/env bash
# The framework's front door against upstream: the same KubeSchedulerConfiguration files run
# on kube-scheduler v1.20.2 (the cached binary) and on policy-scheduler, side by side under
# their own scheduler names, on the same simulated nodes with the same running pods
# (tests/data/framework-diff/{nodes.json,background.yaml}). Each case
# (tests/data/framework-diff/cases/NAME/) is a config.yaml whose profiles are named
# "@SCHED@..." (filled in per scheduler), with optional `gates` (--feature-gates for both)
# and pods.yaml (else the shared test pods). The cases: v1.20's defaults, with
# DefaultPodTopologySpread on (v1.20's default) and off; two profiles (and a pod of a third
# scheduler name neither takes); a default plugin disabled at filter and another at score;
# "*" disabled and a chosen set enabled; other weights; RequestedToCapacityRatio's shape,
# NodeResourcesFit's ignoredResources and ignoredResourceGroups (with DefaultPreemption's
# candidate counts), Least/MostAllocated with resource weights and an extended resource,
# PodTopologySpread's defaultConstraints,
# InterPodAffinity's hardPodAffinityWeight, NodeLabel, ServiceAffinity; an extender;
# preemption disabled through postFilter.
#
# Each scheduler starts once per case (the next case's pair while this one places its pods).
# The test pods are placed one at a time, alternating between the two, and deleted once
# decided, so every pod meets the same cluster. Compared per pod: the outcome (node, "unschedulable: MESSAGE", or "left alone" for a scheduler name
# no profile takes) and every feasible node's total score from the -v=10 logs (upstream's
# "Host N => Score S", ours "scores for ..."). The data has no ties in upstream's scores
# (checked per case): a tie would be settled at random and prove nothing. Each image is on
# one node only: v1.20's ImageLocality keeps with each node the number of nodes holding an
# image as it was when that node last changed, so an image on two nodes scores by the order
# of their status updates.
# FDIFF_CASES="a b" runs a subset. Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/plane-script.sh"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir) || exit 1
DATA=tests/data/framework-diff
NS=fdiff
NODES=($(jq -r '.[].name' "$DATA/nodes.json"))
if [ -n "${FDIFF_CASES:-}" ]; then CASES=($FDIFF_CASES); else CASES=($(ls "$DATA/cases")); fi
NS_PID=
EXT_PID=
PIDS=()

cleanup() {
  local p
  for p in "${PIDS[@]}" $(cat "$T"/run-*/*.pid 2>/dev/null); do stop_pid "$p"; done
  stop_pid "$EXT_PID"
  {
    kubectl -n "$NS" delete pods --all --grace-period=0 --force
    kubectl delete namespace "$NS" --wait=false
    kubectl delete priorityclass fdiff-high --ignore-not-found
  } >/dev/null 2>&1
  plane_nodes_cleanup fdiff
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# ---- the cluster --------------------------------------------------------------------

plane_nodes_up fdiff "the ${#NODES[@]} nodes" --counted --seconds 30 --nodes-file "$DATA/nodes.json"

# The extender: filter drops fd-5, prioritize scores 0..10 from the pod's and the node's
# names; nodes come as objects (nodeCacheCapable false).
EXT_PORT=$(free_port)
cat > "$T/extender.py" <<'PY'
import json, sys
import extender_http

def answer(path, args):
    pod = extender_http.pod_name(args)
    nodes = (args.get("Nodes") or {}).get("items", [])
    if path == "/filter":
        keep = [n for n in nodes if n["metadata"]["name"] != "fd-5"]
        reply = {"Nodes": {"items": keep}, "FailedNodes": {"fd-5": "fd-5 is kept for others"}
                 if len(keep) < len(nodes) else {}, "Error": ""}
    elif path == "/prioritize":
        base = pod.rsplit("-", 1)[0]     # the same score for the two schedulers' copies
        reply = [{"Host": n["metadata"]["name"],
                  "Score": (sum(map(ord, base)) + 7 * int(n["metadata"]["name"].split("-")[1])) % 11}
                 for n in nodes]
    else:
        return None
    print(path, pod, json.dumps(reply)[:300], file=sys.stderr, flush=True)
    return reply

extender_http.serve(int(sys.argv[1]), answer)
PY
python3 "$T/extender.py" "$EXT_PORT" 2>> "$CLUSTER_DIR/logs/extender-fdiff.log" &
EXT_PID=$!
EXT_URL=http://127.0.0.1:$EXT_PORT
wait_for "the test's extender listens" 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$EXT_PORT"

ns_gone() { ! kubectl get namespace "$NS" >/dev/null 2>&1; }
wait_for "namespace $NS of an earlier run is gone" 120 ns_gone
kubectl create namespace "$NS" >/dev/null
plane_priority_class fdiff-high 1000000 "framework differential: a pod that would preempt"

# create_docs FILE: each YAML document of FILE, in order (@NS@, @UID:KIND/NAME@ resolved).
create_docs() {
  local docs doc ref uid
  docs=$(mktemp -d -p "$T")
  sed -e "s/@NS@/$NS/g" "$1" |
    awk -v d="$docs" 'BEGIN { n = 0; f = sprintf("%s/%03d.yaml", d, n) }
      /^---$/ { n++; f = sprintf("%s/%03d.yaml", d, n); next } { print > f }'
  for doc in "$docs"/*.yaml; do
    grep -q '^kind:' "$doc" || continue
    for ref in $(grep -o '@UID:[^@]*@' "$doc" | sort -u); do
      uid=$(kubectl -n "$NS" get "${ref:5:-1}" -o jsonpath='{.metadata.uid}')
      sed -i "s|$ref|$uid|g" "$doc"
    done
    kubectl create -f "$doc" >/dev/null || return 1
  done
}
check "the running pods and their services and controllers are created" create_docs "$DATA/background.yaml"
N_BACKGROUND=$(kubectl -n "$NS" get pods -o name | wc -l)
OWNER=$(kubectl -n "$NS" get configmap owner -o jsonpath='{.metadata.uid}')

# ---- one case -----------------------------------------------------------------------

# start WHO CASE LOG: kube-scheduler (WHO upstream) or policy-scheduler (ours) with the case's
# configuration, its profiles named fdiff-CASE-WHO... (the next case's pair starts while this
# one places its pods, and must not take them); prints the PID.
start() {
  local who=$1 case=$2 log=$3 port pid gates=() bin
  port=$(free_port)
  [ -f "$DATA/cases/$case/gates" ] && gates=(--feature-gates "$(cat "$DATA/cases/$case/gates")")
  {
    sed -e "s|@SCHED@|fdiff-$case-$who|g" -e "s|@EXT_URL@|$EXT_URL|g" "$DATA/cases/$case/config.yaml"
    cat <<YAML
clientConnection: {kubeconfig: "$KUBECONFIG", qps: 1000, burst: 1000}
leaderElection: {leaderElect: false}
healthzBindAddress: "127.0.0.1:$port"
metricsBindAddress: "127.0.0.1:$port"
YAML
  } > "$log.config.yaml"
  if [ "$who" = upstream ]; then bin=$K8S_BIN/kube-scheduler; else bin=$BIN_DIR/policy-scheduler; fi
  "$bin" --config "$log.config.yaml" --secure-port 0 "${gates[@]}" -v 10 > "$log" 2>&1 &
  pid=$!
  plane_await_healthz "$pid" "$port" "$who scheduler on $case" "$log" || { stop_pid "$pid"; return 1; }
  echo "$pid"
}

# The placement loop talks to the API server with curl (a kubectl process per call would
# dominate the run): the admin credentials of the plane's kubeconfig.
plane_api_curl
PODS_URL=$API/api/v1/namespaces/$NS/pods

# outcome POD: "node NODE", "unschedulable: MESSAGE" (with ", nominated NODE" when a node was
# nominated); fails while neither.
outcome() {
  "${CURL[@]}" "$PODS_URL/$1" | jq -er '
    if .spec.nodeName then "node " + .spec.nodeName
    else (.status.conditions // [] | map(select(.type == "PodScheduled" and .status == "False" and .message))
          | if length > 0 then "unschedulable: " + .[0].message else empty end)
         + (if .status.nominatedNodeName then ", nominated " + .status.nominatedNodeName else "" end) end'
}

# scores WHO LOG POD: "node=score ..." (sorted) of the first attempt at POD in LOG; nothing
# when one node was feasible (upstream scores only when there is a choice).
scores() {
  local s
  if [ "$1" = upstream ]; then
    s=$(awk -v pod="$NS/$3" '
      /Attempting to schedule pod: / { if (on) exit; on = ($NF == pod); next }
      on && / Host .* => Score / { h = $0; sub(/.* Host /, "", h); split(h, f, " "); print f[1] "=" f[4] }
    ' "$2" | sort)
  else
    s=$(grep -m1 "scores for $NS/$3: " "$2" | sed 's/.*scores for [^:]*: //; s/; chose .*//' | tr ' ' '\n' | sort)
  fi
  [ "$(grep -c = <<< "$s")" -gt 1 ] && tr '\n' ' ' <<< "$s" | sed 's/ $//'
}

# place I WHO SCHED LOG: test pod I (of $T/pods.jsonl) under WHO's scheduler SCHED (@SCHED@
# in its schedulerName replaced); prints "NAME: OUTCOME | SCORES".
place() {
  local i=$1 who=$2 log=$4 base name got k s sched pod
  base=${POD_NAMES[$i]}
  name=$base-${who:0:2}
  pod=${POD_JSON[$i]//@NAME@/$name}
  pod=${pod//@SCHED@/$3}
  sched=${POD_SCHED[$i]//@SCHED@/$3}
  "${CURL[@]}" -X POST -H 'Content-Type: application/json' --data-binary @- "$PODS_URL" <<< "$pod" >/dev/null ||
    { echo "$base: create failed"; return; }
  got=
  if [[ $sched == *-c ]]; then
    # no profile has this name: it must stay untouched (3 s is ample on an idle scheduler)
    sleep 3
    got=$(outcome "$name") || got="left alone"
  else
    for k in $(seq 1 300); do got=$(outcome "$name") && break; got=; sleep 0.05; done
  fi
  "${CURL[@]}" -X DELETE -H 'Content-Type: application/json' --data '{"gracePeriodSeconds": 0}' \
    "$PODS_URL/$name" >/dev/null
  [ -n "$got" ] || { echo "$base: no outcome in 15s"; return; }
  s=$(scores "$who" "$log" "$name")
  echo "$base: $got${s:+ | $s}"
}

# ties FILE: the pods whose upstream scores have more than one best node.
ties() {
  awk -F' [|] ' 'NF > 1 { n = split($2, kv, " "); max = -1e18; c = 0
      for (i = 1; i <= n; i++) { split(kv[i], f, "="); if (f[2] + 0 > max) { max = f[2] + 0; c = 1 } else if (f[2] + 0 == max) c++ }
      if (c > 1) { split($1, p, ":"); print p[1] " (" c " nodes at " max ")" } }' "$1"
}

# launch CASE: starts CASE's two schedulers in the background, their PIDs (empty when one did
# not come up) to $T/run-CASE/{upstream,ours}.pid.
LAUNCHED=()
launch() {
  local dir=$T/run-$1
  mkdir -p "$dir"
  start upstream "$1" "$dir/upstream.log" > "$dir/upstream.pid" 2> "$dir/upstream.err" &
  LAUNCHED+=($!)
  start ours "$1" "$dir/ours.log" > "$dir/ours.pid" 2> "$dir/ours.err" &
  LAUNCHED+=($!)
}

# run_case CASE [NEXT]: both schedulers on CASE's configuration (launched before), NEXT's
# launched meanwhile; upstream places the pods even when ours does not start, so that the
# case's data is checked on its own.
run_case() {
  local case=$1 next=${2:-} dir=$T/run-$1 i pods=$DATA/pods.yaml
  [ -f "$DATA/cases/$case/pods.yaml" ] && pods=$DATA/cases/$case/pods.yaml
  sed -e "s/@NS@/$NS/g" -e "s/@UID:configmap\/owner@/$OWNER/g" "$pods" |
    kubectl create --dry-run=client -o json -f - |
    jq -c 'if .items then .items[] else . end | select(.kind == "Pod")' > "$T/pods.jsonl"
  # names, schedulers and templates whose name (and @SCHED@) place fills in with bash's own
  # substitution: no jq process a placement
  mapfile -t POD_NAMES < <(jq -r .metadata.name "$T/pods.jsonl")
  mapfile -t POD_SCHED < <(jq -r .spec.schedulerName "$T/pods.jsonl")
  mapfile -t POD_JSON < <(jq -c '.metadata.name = "@NAME@"' "$T/pods.jsonl")
  [ ${#LAUNCHED[@]} -eq 0 ] || wait "${LAUNCHED[@]}"
  LAUNCHED=()
  [ -z "$next" ] || launch "$next"
  UPID=$(cat "$dir/upstream.pid"); OPID=$(cat "$dir/ours.pid")
  PIDS=($UPID $OPID)
  : > "$dir/upstream.out"; : > "$dir/ours.out"
  for i in $(seq 0 $(($(wc -l < "$T/pods.jsonl") - 1))); do
    [ -n "$UPID" ] && place "$i" upstream "fdiff-$case-upstream" "$dir/upstream.log" >> "$dir/upstream.out"
    [ -n "$OPID" ] && place "$i" ours "fdiff-$case-ours" "$dir/ours.log" >> "$dir/ours.out"
  done
  stop_pid "$UPID"; stop_pid "$OPID"
  : > "$dir/upstream.pid"; : > "$dir/ours.pid"
  PIDS=()
}

placed=0 same=0
[ ${#CASES[@]} -eq 0 ] || launch "${CASES[0]}"
for k in "${!CASES[@]}"; do
  case=${CASES[$k]}
  desc=$(sed -n '1s/^# //p' "$DATA/cases/$case/config.yaml")
  out=$T/run-$case
  run_case "$case" "${CASES[$((k + 1))]:-}"
  if [ -z "$UPID" ]; then
    not_ok "$case: kube-scheduler v1.20.2 runs the configuration" "$(cat "$out/upstream.err")"
    continue
  fi
  n=$(wc -l < "$out/upstream.out")
  placed=$((placed + n))
  check_eq "$case: upstream decided every pod" "" "$(grep 'no outcome\|create failed' "$out/upstream.out")"
  check_eq "$case: no ties in upstream's scores" "" "$(ties "$out/upstream.out")"
  sed "s/^/# $case: /" "$out/upstream.out"
  if [ "$case" = no-preemption ]; then
    check_eq "$case: no running pod was preempted" "$N_BACKGROUND" "$(kubectl -n "$NS" get pods -o name | wc -l)"
  fi
  if [ -z "$OPID" ]; then
    not_ok "$case: policy-scheduler runs the configuration" "$(cat "$out/ours.err")"
    continue
  fi
  diffs=$(diff "$out/upstream.out" "$out/ours.out" | grep '^[<>]' | sed 's/^</upstream: /; s/^>/ours:     /')
  if [ -z "$diffs" ]; then
    ok "$case ($desc): all $n pods placed and scored as v1.20.2 does"
    same=$((same + n))
  else
    mapfile -t lines <<< "$diffs"
    not_ok "$case ($desc): policy-scheduler decides differently" "${lines[@]}"
    cp "$out/ours.log" "$CLUSTER_DIR/logs/fdiff-$case-$TAP_N-ours.log" 2>/dev/null
    cp "$out/upstream.log" "$CLUSTER_DIR/logs/fdiff-$case-$TAP_N-upstream.log" 2>/dev/null
  fi
done
echo "# $same of $placed pod decisions identical across ${#CASES[@]} configurations"
finish
