# The differential tests' rounds (tests/e2e/40-scheduler-differential.sh,
# 45-scheduler-near-ties.sh), sourced after plane-script.sh. The caller sets DATA (the
# data directory: PHASE/phase.json names the policy, PHASE/workload.yaml the objects), T (a
# scratch directory), K8S_BIN and BIN_DIR, and EXT_URL when a policy names "@EXT_URL@"
# (the extender's URL prefix, filled in per run), and DIFF_NAME (default "diff": the
# prefix of the rounds' namespaces, logs and scheduler names); SCHED_PID is the running
# scheduler.
#
#   start_scheduler WHO POLICY LOG   upstream (kube-scheduler v1.20.2) or ours, at -v=10
#   outcome NS POD                   "POD NODE" or "POD unschedulable: MESSAGE"
#   run_round PHASE WHO              WHO places PHASE's workload; outcomes in $T/PHASE-WHO.out;
#                                    fails, saying why, when an object could not be created,
#                                    a pod had no outcome within DIFF_OUTCOME_SECONDS (30),
#                                    the scheduler exited or the round's pods did not go
#   ties WHO LOG                     pods with more than one best node in WHO's -v=10 log

# start_scheduler WHO POLICY LOG: one scheduler of the comparison, verbose, under its own name.
start_scheduler() {
  local who=$1 policy=$2 log=$3 port
  port=$(free_port)
  if [ "$who" = upstream ]; then
    # Both schedulers run at v1.20's default gates: DefaultPodTopologySpread (beta, on)
    # turns the policy's SelectorSpreadPriority into PodTopologySpread with system default
    # constraints. DIFF_GATES (e.g. DefaultPodTopologySpread=false, the classic
    # SelectorSpread) goes to both when set.
    "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$policy" \
      --scheduler-name "${DIFF_NAME:-diff}-upstream" --leader-elect=false --address 127.0.0.1 --port "$port" \
      --secure-port 0 --kube-api-qps 1000 --kube-api-burst 1000 \
      ${DIFF_GATES:+--feature-gates "$DIFF_GATES"} -v 10 > "$log" 2>&1 &
  else
    "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$policy" \
      --scheduler-name "${DIFF_NAME:-diff}-ours" --leader-elect=false --bind-address 127.0.0.1 --port "$port" --secure-port 0 \
      ${DIFF_GATES:+--feature-gates "$DIFF_GATES"} -v 10 > "$log" 2>&1 &
  fi
  SCHED_PID=$!
  plane_await_healthz "$SCHED_PID" "$port" "$who scheduler" "$log"
}

# outcome NS POD: "POD NODE" once bound, "POD unschedulable: MESSAGE" once reported
# unschedulable; fails while neither.
outcome() {
  local got node status msg
  got=$(api_get "/api/v1/namespaces/$1/pods/$2" | jq -r '[.spec.nodeName // "",
    (.status.conditions // [] | map(select(.type == "PodScheduled")) | .[0] // {} | (.status // ""), (.message // ""))] | join("|")') || return 1
  IFS='|' read -r node status msg <<< "$got"
  if [ -n "$node" ]; then echo "$2 $node"; return 0; fi
  if [ "$status" = False ] && [ -n "$msg" ]; then echo "$2 unschedulable: $msg"; return 0; fi
  return 1
}

# run_round PHASE WHO: WHO places PHASE's workload; outcomes in $T/PHASE-WHO.out. The
# objects go to the API server through curl (tests/lib/e2e.sh's api), one kubectl turning
# the workload into JSON: a kubectl process per object would make most of the CPU time.
run_round() {
  local prefix=${DIFF_NAME:-diff}
  local phase=$1 who=$2 ns="$prefix-$1-$2" log="$CLUSTER_DIR/logs/sched-$prefix-$1-$2.log"
  local policy out="$T/$1-$2.out" docs="$T/$1-$2.jsonl" doc kind name got ref uid problems=() n=0
  local end path created
  local -A uids=()
  policy=$(jq -r '.policy' "$DATA/$phase/phase.json")
  if grep -q '@EXT_URL@' "$policy"; then
    sed "s|@EXT_URL@|${EXT_URL:?a policy names @EXT_URL@}|g" "$policy" > "$T/$phase-policy.json"
    policy=$T/$phase-policy.json
  fi
  ROUND_NS=$ns
  : > "$out"
  printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"%s"}}' "$ns" | api_create /api/v1/namespaces >/dev/null ||
    return 1
  start_scheduler "$who" "$policy" "$log" || return 1
  # one JSON object a line, in order
  sed -e "s/@NS@/$ns/g" -e "s/@SCHED@/$prefix-$who/g" "$DATA/$phase/workload.yaml" > "$T/$1-$2.yaml"
  docs_json "$T/$1-$2.yaml" > "$docs" || problems+=("the workload does not convert to JSON")
  # each document's kind and path, one jq for all (a few processes a document are most of
  # the round's CPU time)
  local kinds=() paths=() kp
  while read -r kp; do kinds+=("${kp%% *}"); paths+=("${kp#* }"); done < <(api_paths < "$docs")
  while IFS= read -r doc; do
    n=$((n + 1)) created=
    kind=${kinds[$((n - 1))]:-} path=${paths[$((n - 1))]:-}
    # @UID:KIND/NAME@: the uid of an object created earlier in the round
    while [[ $doc =~ @UID:([^@]*)@ ]]; do
      doc=${doc//"${BASH_REMATCH[0]}"/${uids[${BASH_REMATCH[1]}]:-}}
    done
    [ -n "$path" ] &&
      created=$(api_create "$path" <<< "$doc") || {
      echo "document $n ($kind): create failed: $created" >> "$out"
      problems+=("document $n ($kind): create failed")
      continue
    }
    read -r name uid < <(jq -r '"\(.metadata.name) \(.metadata.uid)"' <<< "$created")
    uids[${kind,,}/$name]=$uid
    if [ "$kind" = PersistentVolumeClaim ] && [ -n "$(jq -r '.spec.volumeName // empty' <<< "$doc")" ]; then
      # pre-bound: the PV controller completes it before any pod needs it
      # (polls end by the clock: a count of polls would stretch on a loaded machine)
      end=$((SECONDS + 30))
      until [ "$(api_get "/api/v1/namespaces/$ns/persistentvolumeclaims/$name" | jq -r .status.phase)" = Bound ]; do
        [ $SECONDS -lt $end ] || break
        sleep 0.1
      done
    fi
    [ "$kind" = Pod ] || continue
    got= end=$((SECONDS + ${DIFF_OUTCOME_SECONDS:-30}))
    until got=$(outcome "$ns" "$name"); do
      got=
      [ $SECONDS -lt $end ] || break
      sleep 0.1
    done
    echo "${got:-$name no outcome in ${DIFF_OUTCOME_SECONDS:-30}s}" >> "$out"
    [ -n "$got" ] || problems+=("$name: no outcome in ${DIFF_OUTCOME_SECONDS:-30}s")
    # an unschedulable pod leaves, so that nothing later depends on when it is retried
    [[ $got == *unschedulable:* ]] &&
      api DELETE "/api/v1/namespaces/$ns/pods/$name" -H 'Content-Type: application/json' \
        --data '{"gracePeriodSeconds":0}' >/dev/null 2>&1
  done < "$docs"
  alive "$SCHED_PID" || problems+=("the $who scheduler exited during the round (log: $log)")
  stop_pid "$SCHED_PID"
  SCHED_PID=
  # the next round starts from empty nodes
  api DELETE "/api/v1/namespaces/$ns/pods" -H 'Content-Type: application/json' --data '{"gracePeriodSeconds":0}' >/dev/null 2>&1
  api DELETE "/api/v1/namespaces/$ns" >/dev/null 2>&1
  no_pods() { [ "$(api_get "/api/v1/namespaces/$ns/pods" | jq '.items | length')" = 0 ]; }
  end=$((SECONDS + 30))
  until no_pods; do
    [ $SECONDS -lt $end ] || break
    sleep 0.1
  done
  no_pods || problems+=("the round's pods were still there after 30s")
  # cluster-scoped objects of the round (PVs) go too
  for name in $(api_get /api/v1/persistentvolumes | jq -r --arg p "$ns-" '.items[].metadata.name | select(startswith($p))'); do
    api DELETE "/api/v1/persistentvolumes/$name" >/dev/null 2>&1
  done
  [ ${#problems[@]} -eq 0 ] || { printf '%s\n' "${problems[@]}"; return 1; }
}

# ties WHO LOG: pods for which the scheduler's -v=10 log shows more than one best node.
ties() {
  if [ "$1" = upstream ]; then
    # v1.20 logs each score plugin's weighted scores per attempt:
    #   Plugin NodeAffinity scores on NS/POD => [{node-a 30} {node-b 0}]
    # and then every node's total, extenders' prioritize scores included:
    #   Host node-a => Score 130
    # (the totals win when present; the plugin sums lack the extenders)
    awk 'function flush(  n, max, k, h) {
           h = 0; for (k in host) h++
           if (h) { delete sum; for (k in host) sum[k] = host[k] }
           max = -1; n = 0
           for (k in sum) { if (sum[k] > max) { max = sum[k]; n = 1 } else if (sum[k] == max) n++ }
           if (n > 1) print pod " (" n " nodes at " max ")"
           if (n > 0) scored++
           delete sum; delete host
         }
         /Attempting to schedule pod: / { flush(); pod = $NF; next }
         / Host [^ ]+ => Score -?[0-9]+$/ { host[$(NF - 3)] = $NF; next }
         / scores on .* => \[/ {
           line = substr($0, index($0, "=> [") + 4)
           while (match(line, /\{[^ }]+ -?[0-9]+\}/)) {
             split(substr(line, RSTART + 1, RLENGTH - 2), w, " "); sum[w[1]] += w[2]
             line = substr(line, RSTART + RLENGTH)
           }
         }
         END { flush(); if (!scored) print "no scores in the log" }' "$2"
  else
    grep -o 'scores for [^:]*: .*; chose [^ ]* ([0-9]* node' "$2" |
      awk '{ n = $(NF - 1); sub(/^\(/, "", n); if (n + 0 > 1) print $3 " (" n " nodes)" }
           END { if (!NR) print "no scores in the log" }'
  fi
}

