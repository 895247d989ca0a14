#!/usr/bin/env bash
# The validator agrees with kube-scheduler v1.20.2 on every policy case in the tree.
#
# Each case under tests/data/policy/ (its input, the policy.cfg of its ConfigMap manifest, or
# the rendering of its built-in profile) is given to the cached upstream kube-scheduler with
# --policy-config-file, and to policy-validator as the operator runs it (default options,
# the 1 MiB ConfigMap bound). Then, per case:
#   - if upstream refuses to start, the validator rejects the case;
#   - if the validator rejects a case that upstream starts with, every error it reports is
#     one of its deliberately stricter rules, listed with their reasons under "Deliberately
#     stricter than kube-scheduler" in policy-validator/README.md (this script reads that
#     table, so the list and the check cannot drift apart).
# A case whose only difference is a stricter rule is reported "ok" with the rule named. A
# case that cannot be judged (no input, a source file missing from the tree, a profile the
# validator cannot render) is a failure, never a skip: the comparison did not happen.
#
# "Started" is upstream's "Starting Kubernetes Scheduler" line, logged once the Policy has
# been decoded, validated and turned into a framework profile (scheduler.New returned);
# "refused" is the process exiting before it. Each upstream process runs under its own
# scheduler name with leader election and serving off, so it schedules nothing, and is
# stopped by PID once decided. Cases run DECODER_JOBS at a time (default 4).
# Runs under tools/with-cluster (KUBECONFIG set): kube-scheduler needs a kubeconfig.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
BIN_DIR=${BIN_DIR:-build/default/bin}
BIN_DIR=$(cd "$BIN_DIR" 2>/dev/null && pwd) || bail_out "binaries missing in ${BIN_DIR} (make all)"
[ -n "${KUBECONFIG:-}" ] || bail_out "run under tools/with-cluster (no KUBECONFIG)"
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir) || bail_out "no Kubernetes binaries (tests/cluster/build.sh)"
[ -x "$K8S_BIN/kube-scheduler" ] || bail_out "no cached kube-scheduler in $K8S_BIN (tests/cluster/build.sh)"
# POLICY_DECODER_CASES: another case tree (this script's own test gives it a broken case)
CASES=${POLICY_DECODER_CASES:-tests/data/policy}
JOBS=${DECODER_JOBS:-4}
MAX_SIZE=$((1024 * 1024))   # what the operator passes (a ConfigMap cannot hold more)
T=$(mktemp -d)
PIDS_DIR=$T/pids
mkdir -p "$PIDS_DIR"

cleanup() {
  local f
  for f in "$PIDS_DIR"/*; do
    [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
  done
  rm -rf "$T"
}
trap cleanup EXIT

# The stricter rules: `code` in the first column of the README's table.
STRICTER=$(awk '/^## Deliberately stricter than kube-scheduler/ { on = 1; next }
                /^## / { on = 0 }
                on && /^\| `[a-z0-9-]+`/ {
                  split($0, col, "|"); n = split(col[2], f, "`")
                  for (i = 2; i <= n; i += 2) print f[i]
                }' policy-validator/README.md)
[ -n "$STRICTER" ] || bail_out "no stricter-rule table in policy-validator/README.md"

# upstream_judge POLICY OUT NAME: writes OUT/upstream ("started" or "refused: MESSAGE").
upstream_judge() {
  local policy=$1 out=$2 name=$3 log=$2/upstream.log pid i
  "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$policy" \
    --scheduler-name "decoder-$name" --leader-elect=false --port 0 --secure-port 0 -v 1 > "$log" 2>&1 &
  pid=$!
  echo "$pid" > "$PIDS_DIR/$name"
  for i in $(seq 1 600); do
    if grep -qs 'Starting Kubernetes Scheduler' "$log"; then
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      echo started > "$out/upstream"
      rm -f "$PIDS_DIR/$name"
      return
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    echo "undecided after 30 s" > "$out/upstream"
  else
    wait "$pid" 2>/dev/null
    # the reason: klog's fatal line, or cobra's error (the last line that is not a flag dump)
    echo "refused: $(grep -av 'flags.go' "$log" | grep -aE '^(F[0-9]{4} |Error: |invalid policy|couldn)' | head -n 1 | cut -c1-300)" \
      > "$out/upstream"
  fi
  rm -f "$PIDS_DIR/$name"
}

# judge CASE: both verdicts into $T/CASE/.
judge() {
  local c=$1 dir=$CASES/$1 out=$T/$1 input= opt configmap= profile= src
  mkdir -p "$out"
  [ -f "$dir/options" ] && while read -r opt; do
    case $opt in
      configmap) configmap=1 ;;
      profile=*) profile=${opt#profile=} ;;
    esac
  done < "$dir/options"
  for f in input.json input.yaml input; do [ -f "$dir/$f" ] && { input=$dir/$f; break; }; done
  if [ -z "$input" ] && [ -f "$dir/source" ]; then
    src=$(head -n 1 "$dir/source")
    [ -f "$src" ] || { echo "its source file $src is not in this tree" > "$out/unjudged"; return; }
    input=$src
  fi
  if [ -n "$profile" ]; then
    "$BIN_DIR/policy-validator" --profile "$profile" --normalize > "$out/policy.cfg" 2>/dev/null ||
      { echo "policy-validator cannot render profile $profile" > "$out/unjudged"; return; }
    input=$out/policy.cfg
  fi
  [ -n "$input" ] || { echo "no input (input.json, input.yaml, input, source or a profile)" > "$out/unjudged"; return; }

  # The validator, as the operator runs it.
  local vargs=(--kind Policy --max-size "$MAX_SIZE" --output json)
  [ -n "$configmap" ] && vargs+=(--configmap)
  local rc
  "$BIN_DIR/policy-validator" "${vargs[@]}" "$input" > "$out/validator.json" 2>/dev/null
  rc=$?
  case $rc in
    0) echo accepted > "$out/validator" ;;
    1) echo rejected > "$out/validator" ;;
    *) echo "failed (exit status $rc)" > "$out/validator" ;;
  esac
  jq -r '[.diagnostics[]? | select(.severity == "error") | .code] | unique | .[]' "$out/validator.json" \
    > "$out/codes" 2>/dev/null

  # Upstream gets the policy.cfg of a ConfigMap as the API server would store it.
  local policy=$input
  if [ -n "$configmap" ]; then
    if ! kubectl create --dry-run=client -o json -f "$input" > "$out/cm.json" 2> "$out/cm.err"; then
      echo "refused: the API server's client refuses the manifest: $(head -n 1 "$out/cm.err")" > "$out/upstream"
      return
    fi
    if [ "$(jq -r '.kind' "$out/cm.json")" != ConfigMap ] ||
       ! jq -e '.data["policy.cfg"] | type == "string"' "$out/cm.json" >/dev/null; then
      echo "refused: missing policy config map value at key \"policy.cfg\"" > "$out/upstream"
      return
    fi
    jq -j '.data["policy.cfg"]' "$out/cm.json" > "$out/policy.cfg"
    policy=$out/policy.cfg
  fi
  upstream_judge "$policy" "$out" "$(echo "$c" | tr 'A-Z_' 'a-z-' | cut -c1-50)"
}

start=$(date +%s)
n=0
for dir in "$CASES"/*/; do
  c=$(basename "$dir")
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  judge "$c" &
  n=$((n + 1))
done
wait
elapsed=$(( $(date +%s) - start ))

agree=0 stricter=0 disagree=0 unjudged=0
for dir in "$CASES"/*/; do
  c=$(basename "$dir")
  out=$T/$c
  if [ -f "$out/unjudged" ]; then
    not_ok "$c: cannot be judged: $(cat "$out/unjudged")"
    unjudged=$((unjudged + 1))
    continue
  fi
  v=$(cat "$out/validator" 2>/dev/null || echo "no verdict")
  u=$(cat "$out/upstream" 2>/dev/null || echo "no verdict")
  codes=$(tr '\n' ' ' < "$out/codes" 2>/dev/null | sed 's/ $//')
  if [[ $u == refused:* ]] && [ "$v" = rejected ]; then
    ok "$c: both refuse (validator: $codes)"; agree=$((agree + 1))
  elif [ "$u" = started ] && [ "$v" = accepted ]; then
    ok "$c: both accept"; agree=$((agree + 1))
  elif [ "$u" = started ] && [ "$v" = rejected ]; then
    loose=$(grep -vxF -f <(echo "$STRICTER") "$out/codes" | tr '\n' ' ' | sed 's/ $//')
    if [ -z "$loose" ] && [ -n "$codes" ]; then
      ok "$c: upstream starts, the validator rejects by its stricter rules: $codes"; stricter=$((stricter + 1))
    else
      not_ok "$c: upstream starts, but the validator rejects it for: ${loose:-no error code}" \
        "validator: $(jq -c '[.diagnostics[]? | select(.severity == "error") | {code, path, message}]' "$out/validator.json" | cut -c1-600)"
      disagree=$((disagree + 1))
    fi
  else
    not_ok "$c: upstream ${u%%:*}, the validator $v" "upstream: $u" \
      "validator: $(jq -c '[.diagnostics[]? | {severity, code, path}]' "$out/validator.json" 2>/dev/null | cut -c1-600)"
    disagree=$((disagree + 1))
  fi
done
echo "# $n cases in ${elapsed}s ($JOBS at a time): $agree agree, $stricter rejected only by stricter rules, $disagree disagree, $unjudged cannot be judged"
finish
