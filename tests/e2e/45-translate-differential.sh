#!/usr/bin/env bash
# The migration path is verified: `policy-validator --translate=v1beta1` produces a
# KubeSchedulerConfiguration that makes kube-scheduler v1.20.2 decide exactly as the Policy
# it came from. For each policy (deploy/policy.cfg, the three profiles, and every policy in
# tests/data that the validator accepts and translates without a translate-unmappable
# warning), the cached upstream kube-scheduler runs twice side by side, once with
# --policy-config-file and once with --config and the translation, each under its own
# scheduler name. The same test pods (tests/data/translate-diff/pods.yaml) are placed one at
# a time, alternating between the two, on the same simulated nodes with the same running
# pods (background.yaml); each test pod is deleted once decided, so every pod meets the same
# cluster and a tie broken differently cannot spread to later pods.
#
# Compared per pod: the outcome (node, or the unschedulable message) and, from each
# scheduler's -v=10 log, every feasible node's total score. When several nodes share the
# best score, upstream picks one at random, so the chosen node is compared only when the
# best node is unique; the scores still are.
# Policies with the same normalized form run once. Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/plane-script.sh"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir) || bail_out "no Kubernetes binaries (tests/cluster/build.sh)"
DATA=tests/data/translate-diff
V=$BIN_DIR/policy-validator
NS=tdiff
NODES=($(jq -r '.[].name' "$DATA/nodes.json"))
NS_PID=
PIDS=()

cleanup() {
  local p
  for p in "${PIDS[@]}" $(cat "$T"/run-*/*.pid 2>/dev/null); do stop_pid "$p"; done
  {
    kubectl -n "$NS" delete pods --all --grace-period=0 --force
    kubectl delete namespace "$NS" --wait=false
  } >/dev/null 2>&1
  plane_nodes_cleanup tdiff
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# ---- the policies -------------------------------------------------------------------

# add_policy NAME FILE: keeps FILE when the validator accepts it and the v1beta1
# translation loses nothing; one run per normalized form.
# A lossy translation the comparison must tell apart (a control: the test can fail).
CONTROL=argument-requestedToCapacityRatio-no-resources
declare -A SEEN=()
POLICIES=()
LOSSY=()
add_policy() {
  local name=$1 file=$2 hash warn
  "$V" --kind Policy --max-size 1048576 "$file" >/dev/null 2>&1 || return 0
  warn=$("$V" --translate=v1beta1 -o json "$file" 2>/dev/null |
    jq -r '[.diagnostics[] | select(.code == "translate-unmappable") | .path] | join(", ")')
  if [ -n "$warn" ]; then
    LOSSY+=("$name ($warn)")
    [ "$name" = "$CONTROL" ] && { mkdir -p "$T/p"; cp "$file" "$T/p/control"; }
    return 0
  fi
  hash=$("$V" --normalize "$file" 2>/dev/null | sha256sum | cut -c1-16)
  if [ -n "${SEEN[$hash]:-}" ]; then
    [[ " ${SEEN[$hash]} " == *" $name "* ]] || SEEN[$hash]+=" $name"
    return 0
  fi
  SEEN[$hash]=$name
  mkdir -p "$T/p"
  cp "$file" "$T/p/$hash"
  POLICIES+=("$hash")
}

add_policy deploy/policy.cfg deploy/policy.cfg
for profile in LowNodeUtilization HighNodeUtilization NoScoring; do
  "$V" --profile "$profile" --normalize > "$T/profile-$profile.cfg"
  add_policy "profile $profile" "$T/profile-$profile.cfg"
done
# the scheduler differential's policies (named in its phase files, wherever they live)
for f in tests/data/*/*/phase.json; do
  [ -f "$f" ] || continue
  p=$(jq -r '.policy // empty' "$f")
  [ -n "$p" ] && [ -f "$p" ] && add_policy "$p" "$p"
done
# Every policy case takes about 20 s on 2 cores: `make test` runs every
# TRANSLATE_DIFF_SAMPLE-th case (4), TRANSLATE_DIFF_SAMPLE=1 all of them.
SAMPLE=${TRANSLATE_DIFF_SAMPLE:-4}
n_case=0
for dir in tests/data/policy/*/; do
  n_case=$((n_case + 1))
  c=$(basename "$dir") input= configmap=
  [ $(( (n_case - 1) % SAMPLE )) -eq 0 ] || [ "$c" = "$CONTROL" ] || continue
  [ -f "$dir/options" ] && grep -q '^profile=' "$dir/options" && continue
  [ -f "$dir/options" ] && grep -qx configmap "$dir/options" && configmap=1
  for f in input.json input.yaml input; do [ -f "$dir/$f" ] && { input=$dir/$f; break; }; done
  [ -z "$input" ] && [ -f "$dir/source" ] && input=$(head -n 1 "$dir/source")
  [ -n "$input" ] && [ -f "$input" ] || continue
  if [ -n "$configmap" ]; then
    kubectl create --dry-run=client -o json -f "$input" 2>/dev/null |
      jq -je '.data["policy.cfg"] // empty' > "$T/cm-$c.cfg" 2>/dev/null || continue
    input=$T/cm-$c.cfg
  fi
  add_policy "$c" "$input"
done
echo "# ${#POLICIES[@]} distinct policies translate without loss (every ${SAMPLE}th policy case); lossy, left out: ${#LOSSY[@]}"
# tools/run-tests repeats this on the script's line and make test's summary
[ "$SAMPLE" -eq 1 ] || echo "# sampled: every ${SAMPLE}th of $n_case policy cases (TRANSLATE_DIFF_SAMPLE=1 runs all)"
for l in "${LOSSY[@]}"; do echo "#   lossy: $l"; done

# ---- the cluster --------------------------------------------------------------------

plane_nodes_up tdiff "the ${#NODES[@]} nodes" --nodes-file "$DATA/nodes.json"

ns_gone() { ! kubectl get namespace "$NS" >/dev/null 2>&1; }
setup_wait "namespace $NS of an earlier run is gone" 120 ns_gone
kubectl create namespace "$NS" >/dev/null
# create_docs FILE SCHED: each YAML document of FILE, in order (@UID:KIND/NAME@ resolved).
create_docs() {
  local file=$1 sched=$2 docs doc ref uid
  docs=$(mktemp -d -p "$T")
  sed -e "s/@NS@/$NS/g" -e "s/@SCHED@/$sched/g" "$file" |
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
setup "the running pods of the comparison are created" create_docs "$DATA/background.yaml" none
WEB_OWNER=$(kubectl -n "$NS" get configmap web-owner -o jsonpath='{.metadata.uid}')

# ---- one comparison -----------------------------------------------------------------

# start WHO POLICY LOG NAME: WHO is "policy" or "config", NAME its scheduler name; prints
# the PID.
start() {
  local who=$1 policy=$2 log=$3 name=$4 port pid
  port=$(free_port)
  if [ "$who" = policy ]; then
    "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$policy" \
      --scheduler-name "$name" --leader-elect=false --address 127.0.0.1 --port "$port" \
      --secure-port 0 --kube-api-qps 1000 --kube-api-burst 1000 -v 10 > "$log" 2>&1 &
  else
    "$V" --translate=v1beta1 --scheduler-name "$name" "$policy" 2>/dev/null |
      jq --arg k "$KUBECONFIG" --arg a "127.0.0.1:$port" \
        '. + {clientConnection: {kubeconfig: $k, qps: 1000, burst: 1000},
              leaderElection: {leaderElect: false}, healthzBindAddress: $a, metricsBindAddress: $a}' \
      > "$log.config.json"
    "$K8S_BIN/kube-scheduler" --config "$log.config.json" --secure-port 0 -v 10 > "$log" 2>&1 &
  fi
  pid=$!
  plane_await_healthz "$pid" "$port" "kube-scheduler ($who)" "$log" || { stop_pid "$pid"; return 1; }
  echo "$pid"
}

# The placement loop talks to the API server with curl (a kubectl process per call would
# dominate the run): the admin credentials of the plane's kubeconfig.
plane_api_curl
PODS_URL=$API/api/v1/namespaces/$NS/pods

# The test pods as JSON, once; each placement renames one and sets its scheduler.
sed -e "s/@NS@/$NS/g" -e "s/@WEB_OWNER@/$WEB_OWNER/g" -e "s/@SCHED@/none/g" "$DATA/pods.yaml" |
  kubectl create --dry-run=client -o json -f - | jq -c 'if .items then .items[] else . end | select(.kind == "Pod")' > "$T/pods.jsonl"
N_PODS=$(wc -l < "$T/pods.jsonl")
# Their names, and each as a template whose name and scheduler a placement fills in with
# bash's own substitution (two jq processes a placement were a sixth of the run).
mapfile -t POD_NAMES < <(jq -r .metadata.name "$T/pods.jsonl")
mapfile -t POD_JSON < <(jq -c '.metadata.name = "@NAME@" | .spec.schedulerName = "@SCHED@"' "$T/pods.jsonl")

# outcome POD: "node NODE" or "unschedulable: MESSAGE"; fails while neither.
outcome() {
  "${CURL[@]}" "$PODS_URL/$1" | jq -er '
    if .spec.nodeName then "node " + .spec.nodeName
    else (.status.conditions // [] | map(select(.type == "PodScheduled" and .status == "False" and .message))
          | if length > 0 then "unschedulable: " + .[0].message else empty end) end'
}

# scores LOG POD: "node=score ..." (sorted) from the first attempt at POD in LOG.
scores() {
  awk -v pod="$NS/$2" '
    /Attempting to schedule pod: / { if (on) exit; on = ($NF == pod); next }
    on && / Host .* => Score / { h = $0; sub(/.* Host /, "", h); split(h, f, " "); print f[1] "=" f[4] }
  ' "$1" | sort | tr '\n' ' ' | sed 's/ $//'
}

# place I SUFFIX SCHED LOG SCORING: test pod I under scheduler SCHED; prints one line.
# Without score plugins upstream picks any feasible node at random: then only "placed" is
# compared. With them, a pod without scores had one feasible node.
place() {
  local i=$1 suffix=$2 sched=$3 log=$4 scoring=$5 base name got k s top n pod
  base=${POD_NAMES[$i]}
  name=$base-$suffix
  pod=${POD_JSON[$i]//@NAME@/$name}
  pod=${pod//@SCHED@/$sched}
  "${CURL[@]}" -X POST -H 'Content-Type: application/json' --data-binary @- "$PODS_URL" <<< "$pod" >/dev/null ||
    { echo "$base: create failed"; return; }
  got=
  for k in $(seq 1 300); do got=$(outcome "$name") && break; got=; sleep 0.05; done
  "${CURL[@]}" -X DELETE -H 'Content-Type: application/json' --data '{"gracePeriodSeconds": 0}' \
    "$PODS_URL/$name" >/dev/null
  [ -n "$got" ] || { echo "$base: no outcome in 15s"; return; }
  s=$(scores "$log" "$name")
  if [[ $got == node* ]] && [ -n "$s" ]; then
    top=$(tr ' ' '\n' <<< "$s" | awk -F= '{ if ($2 > m || NR == 1) m = $2; v[$1] = $2 }
                                      END { for (k in v) if (v[k] == m) print k }' | sort | tr '\n' ,)
    n=$(tr -cd , <<< "$top" | wc -c)
    # a tie is broken at random: then only the tied set is compared
    [ "$n" -gt 1 ] && got="tie among ${top%,}"
  elif [[ $got == node* ]] && [ "$scoring" = 0 ]; then
    got="placed (no score plugins: any feasible node)"
  fi
  echo "$base: $got${s:+ | $s}"
}

# launch HASH: starts the two schedulers of policy HASH in the background, each under a
# name of its own (tdiff-policy-HASH, tdiff-config-HASH), their PIDs (empty when one did
# not come up) to $T/run-HASH/{policy,config}.pid: the next policy's pair starts while the
# current one places its pods (their pods name the current pair, which alone decides them)
LAUNCHED=()
launch() {
  local hash=$1 dir=$T/run-$1
  mkdir -p "$dir"
  start policy "$T/p/$hash" "$dir/policy.log" "tdiff-policy-$hash" > "$dir/policy.pid" &
  LAUNCHED+=($!)
  start config "$T/p/$hash" "$dir/config.log" "tdiff-config-$hash" > "$dir/config.pid" &
  LAUNCHED+=($!)
}

# compare HASH [NEXT]: policy HASH's pair (launched) places every test pod; NEXT's pair is
# launched meanwhile.
compare() {
  local hash=$1 next=${2:-} policy=$T/p/$1 dir=$T/run-$1 ppid cpid i scoring
  scoring=$("$V" --translate=v1beta1 "$policy" 2>/dev/null | jq '.profiles[0].plugins.score.enabled // [] | length')
  [ ${#LAUNCHED[@]} -eq 0 ] || wait "${LAUNCHED[@]}"
  LAUNCHED=()
  [ -z "$next" ] || launch "$next"
  ppid=$(cat "$dir/policy.pid"); cpid=$(cat "$dir/config.pid")
  PIDS=($ppid $cpid)
  if [ -z "$ppid" ] || [ -z "$cpid" ]; then stop_pid "$ppid"; stop_pid "$cpid"; PIDS=(); : > "$dir/policy.pid"; : > "$dir/config.pid"; return 1; fi
  : > "$dir/policy.out"; : > "$dir/config.out"
  for i in $(seq 0 $((N_PODS - 1))); do
    place "$i" p "tdiff-policy-$hash" "$dir/policy.log" "$scoring" >> "$dir/policy.out"
    place "$i" c "tdiff-config-$hash" "$dir/config.log" "$scoring" >> "$dir/config.out"
  done
  stop_pid "$ppid"; stop_pid "$cpid"
  : > "$dir/policy.pid"; : > "$dir/config.pid"
  PIDS=()
}

placed=0 same=0
RUNS=("${POLICIES[@]}")
[ -f "$T/p/control" ] && RUNS+=(control)
[ ${#RUNS[@]} -eq 0 ] || launch "${RUNS[0]}"
for k in "${!POLICIES[@]}"; do
  hash=${POLICIES[$k]}
  names=${SEEN[$hash]}
  if ! compare "$hash" "${RUNS[$((k + 1))]:-}"; then
    not_ok "${names%% *}: both schedulers run" "$(tail -3 "$T/run-$hash"/*.log 2>/dev/null)"
    continue
  fi
  n=$(wc -l < "$T/run-$hash/policy.out")
  placed=$((placed + n))
  diffs=$(diff "$T/run-$hash/policy.out" "$T/run-$hash/config.out" | grep '^[<>]' |
    sed 's/^</policy: /; s/^>/config: /')
  if [ -z "$diffs" ] && [ "$n" -gt 0 ] && ! grep -q 'no outcome\|create failed' "$T/run-$hash/policy.out"; then
    ok "$names: the translation places all $n pods as the policy does"
    same=$((same + n))
  else
    not_ok "$names: the translation decides differently" "$diffs" "$(grep 'no outcome\|create failed' "$T/run-$hash"/*.out)"
    cp "$T/run-$hash"/*.log "$CLUSTER_DIR/logs/" 2>/dev/null
  fi
done
echo "# $same of $placed pod decisions identical across ${#POLICIES[@]} policies"

# The control: requestedToCapacityRatio without resources weighs nothing on the Policy path
# and cpu and memory in v1beta1; the scores must differ.
if [ -f "$T/p/control" ] && compare control; then
  check_match "the comparison tells the lossy translation of $CONTROL apart" . \
    "$(diff "$T/run-control/policy.out" "$T/run-control/config.out")"
else
  not_ok "the control policy $CONTROL runs"
fi
finish
