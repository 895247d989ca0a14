#!/usr/bin/env bash
# The validator agrees with kube-scheduler v1.20.2 on every KubeSchedulerConfiguration case.
#
# Each case under tests/data/kubescheduler-config/ is given, unchanged, to the cached upstream
# kube-scheduler as --config and to policy-validator (--output json). Then, per case:
#   - if upstream refuses to start, the validator rejects the case;
#   - if upstream starts, the validator accepts it, or rejects it only by its deliberately
#     stricter rules, listed with their reasons under "Deliberately stricter than
#     kube-scheduler" in policy-validator/README.md (both tables: the Policy's parser rules
#     apply here too; this script reads them, so the lists and the check cannot drift apart).
# A validator that crashes or exits other than 0 or 1 fails the case whatever upstream did.
#
# "Started" is upstream's "Starting Kubernetes Scheduler" line: --config has been decoded,
# defaulted and validated, the leader-election lock built, and scheduler.New has built every
# profile's framework (each enabled plugin constructed from its arguments). "Refused" is the
# process exiting before it. Upstream makes no API call before either, so no control plane is
# needed: --master names an address it never reaches. Every process runs in its own network
# namespace (unshare -rn), because a KubeSchedulerConfiguration fixes the insecure healthz
# and metrics addresses (0.0.0.0:10251 unless a case says otherwise) and upstream binds them
# before it decides; apart, concurrent cases cannot collide with each other or with whatever
# uses those ports on this machine (its loopback is up, so 127.0.0.1 and ::1 can be bound; an
# address of some other machine could not be, and no case names one). Each is stopped by PID
# once decided. Cases run DECODER_JOBS at a time (default 4). Cases with an `options` line `v1beta2` are v1.22's API,
# which v1.20 does not have: they are skipped here (their expectations are unit-tested).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || exit 1
BIN_DIR=${BIN_DIR:-build/default/bin}
BIN_DIR=$(cd "$BIN_DIR" 2>/dev/null && pwd) || { echo "not ok 1 - binaries missing in ${BIN_DIR} (make all)"; exit 1; }
. tests/cluster/lib.sh
K8S_BIN=$(k8s_bin_dir) || exit 1
[ -x "$K8S_BIN/kube-scheduler" ] || { echo "not ok 1 - no cached kube-scheduler in $K8S_BIN (tests/cluster/build.sh)"; exit 1; }
unshare -rn sh -c 'ip link set lo up' 2>/dev/null || { echo "not ok 1 - unshare -rn (a user and network namespace) is not available here"; exit 1; }
CASES=tests/data/kubescheduler-config
JOBS=${DECODER_JOBS:-4}
MIN_CASES=100
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

STRICTER=$(awk '/^## .*[Dd]eliberately stricter than kube-scheduler/ { on = 1; next }
                /^## / { on = 0 }
                on && /^\| `[a-z0-9-]+`/ {
                  split($0, col, "|"); n = split(col[2], f, "`")
                  for (i = 2; i <= n; i += 2) print f[i]
                }' policy-validator/README.md)
[ -n "$STRICTER" ] || { echo "not ok 1 - no stricter-rule table in policy-validator/README.md"; exit 1; }

# upstream_judge CONFIG OUT NAME GATES: writes OUT/upstream ("started" or "refused: MESSAGE").
upstream_judge() {
  local config=$1 out=$2 name=$3 gates=$4 log=$2/upstream.log pid i
  unshare -rn sh -c 'ip link set lo up && exec "$@"' sh "$K8S_BIN/kube-scheduler" --config "$config" \
    --master https://127.0.0.1:6443 --secure-port 0 ${gates:+--feature-gates "$gates"} -v 1 > "$log" 2>&1 &
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
    # the reason: what follows the flag dump, without cobra's indented usage text
    echo "refused: $(grep -av 'flags.go' "$log" | grep -av '^ ' | grep -av '^$' | grep -av '^Usage:\|^Flags:\|^  -' |
      head -n 3 | tr '\n' ' ' | cut -c1-300)" > "$out/upstream"
  fi
  rm -f "$PIDS_DIR/$name"
}

# judge CASE: both verdicts into $T/CASE/.
judge() {
  local c=$1 dir=$CASES/$1 out=$T/$1 input= opt gates= vargs=(--output json)
  mkdir -p "$out"
  [ -f "$dir/options" ] && while read -r opt; do
    case $opt in
      v1beta2) echo "skip: kubescheduler.config.k8s.io/v1beta2 is kube-scheduler v1.22's API" > "$out/skip"; return ;;
      feature-gate-off) gates=DefaultPodTopologySpread=false; vargs+=(--feature-gates "$gates") ;;
    esac
  done < "$dir/options"
  for f in input.yaml input.json; do [ -f "$dir/$f" ] && { input=$dir/$f; break; }; done
  [ -n "$input" ] || { echo "skip: no input" > "$out/skip"; return; }
  "$BIN_DIR/policy-validator" --kind KubeSchedulerConfiguration "${vargs[@]}" "$input" > "$out/validator.json" 2>/dev/null
  local rc=$?
  case $rc in
    0) echo accepted > "$out/validator" ;;
    1) echo rejected > "$out/validator" ;;
    *) echo "failed (exit status $rc)" > "$out/validator" ;;
  esac
  jq -r '[.diagnostics[]? | select(.severity == "error") | .code] | unique | .[]' "$out/validator.json" \
    > "$out/codes" 2>/dev/null
  upstream_judge "$input" "$out" "$(echo "$c" | cut -c1-60)" "$gates"
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

agree=0 stricter=0 disagree=0 skipped=0
for dir in "$CASES"/*/; do
  c=$(basename "$dir")
  out=$T/$c
  if [ -f "$out/skip" ]; then
    echo "ok $((TAP_N + 1)) - $c # SKIP $(cat "$out/skip")"
    TAP_N=$((TAP_N + 1)); skipped=$((skipped + 1))
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
compared=$((agree + stricter + disagree))
if [ "$compared" -ge "$MIN_CASES" ]; then
  ok "at least $MIN_CASES cases compared with upstream ($compared)"
else
  not_ok "only $compared cases compared with upstream; at least $MIN_CASES are required"
fi
echo "# $n cases in ${elapsed}s ($JOBS at a time): $agree agree, $stricter rejected only by stricter rules, $disagree disagree, $skipped skipped"
finish
