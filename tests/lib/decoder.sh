# The harness of the upstream decoder differentials (sourced after tap.sh, from the tree's
# root, by tests/integration/50-policy-upstream-decoder.sh and
# 51-kubescheduler-config-upstream-decoder.sh): every case directory is judged by
# policy-validator and by the cached kube-scheduler v1.20 (does it start with the case?),
# DECODER_JOBS at a time (default 4), and the two verdicts are compared.
#
#   decoder_setup HEADING_RE      T (a scratch directory) and PIDS_DIR (one file per running
#                                 upstream, killed on exit before T is removed); STRICTER:
#                                 the codes in the first column of config/README.md's
#                                 tables under the headings HEADING_RE matches (bails out
#                                 when there are none)
#   decoder_validate OUT ARGS...  runs policy-validator ARGS (--output json to
#                                 OUT/validator.json): OUT/validator "accepted", "rejected" or
#                                 "failed (exit status N)", OUT/codes its error codes
#   decoder_upstream OUT NAME REASON CMD...
#                                 runs upstream CMD (log OUT/upstream.log) until it says
#                                 "Starting Kubernetes Scheduler" (then kills it), exits, or
#                                 30 s pass: OUT/upstream "started", "refused: WHY" (WHY:
#                                 what the function REASON prints from the log) or
#                                 "undecided after 30 s"
#   decoder_judge_all CASES JUDGE runs JUDGE CASE for every case directory under CASES,
#                                 DECODER_JOBS at a time; sets n (cases) and elapsed (s)
#   decoder_compare_all CASES     one check per case directory under CASES, in order, from
#                                 the verdicts in $T/CASE: counted in agree, stricter or
#                                 disagree; a case its JUDGE could not judge (it wrote why in
#                                 $T/CASE/unjudged) fails, counted in unjudged; one it skipped
#                                 by design ($T/CASE/skip) is a SKIP, counted in skipped
. "$ROOT/tests/lib/proc.sh"

JOBS=${DECODER_JOBS:-4}
agree=0 stricter=0 disagree=0 unjudged=0 skipped=0

decoder_setup() {
  T=$(mktemp -d)
  PIDS_DIR=$T/pids
  mkdir -p "$PIDS_DIR"
  trap decoder_cleanup EXIT
  STRICTER=$(awk -v heading="$1" '$0 ~ ("^## " heading) { on = 1; next }
                  /^## / { on = 0 }
                  on && /^\| `[a-z0-9-]+`/ {
                    split($0, col, "|"); n = split(col[2], f, "`")
                    for (i = 2; i <= n; i += 2) print f[i]
                  }' config/README.md)
  [ -n "$STRICTER" ] || bail_out "no stricter-rule table in config/README.md"
}

decoder_cleanup() {
  local f
  for f in "$PIDS_DIR"/*; do
    [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
  done
  rm -rf "$T"
}

decoder_validate() {
  local out=$1 rc; shift
  "$BIN_DIR/policy-validator" "$@" --output json > "$out/validator.json" 2>/dev/null
  rc=$?
  case $rc in
    0) echo accepted > "$out/validator" ;;
    1) echo rejected > "$out/validator" ;;
    *) echo "failed (exit status $rc)" > "$out/validator" ;;
  esac
  jq -r '[.diagnostics[]? | select(.severity == "error") | .code] | unique | .[]' "$out/validator.json" \
    > "$out/codes" 2>/dev/null
}

decoder_upstream() {
  local out=$1 name=$2 reason=$3 log=$1/upstream.log pid i; shift 3
  "$@" > "$log" 2>&1 &
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
    alive "$pid" || break
    sleep 0.05
  done
  if alive "$pid"; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    echo "undecided after 30 s" > "$out/upstream"
  else
    wait "$pid" 2>/dev/null
    echo "refused: $("$reason" "$log")" > "$out/upstream"
  fi
  rm -f "$PIDS_DIR/$name"
}

# Upstream's verdict again when it disagrees with the validator's: kube-scheduler v1.20 walks a
# Policy's priorities through a Go map, so a decision that depends on their order (the
# overflow checks on huge weights, seen both ways on weight-overflow) may change from run to
# run. Three runs; a verdict that changes is not kept ("unstable"), as a tie is not.
decoder_upstream_confirm() {
  local out=$1 first again i; shift
  first=$(cat "$out/upstream")
  case "${first%%:*}:$(cat "$out/validator")" in
    started:rejected|refused:accepted) ;;
    *) return ;;
  esac
  for i in 2 3; do
    decoder_upstream "$out" "$@"
    again=$(cat "$out/upstream")
    if [ "${again%%:*}" != "${first%%:*}" ]; then
      echo "unstable: run 1 $first; run $i $again" > "$out/upstream"
      return
    fi
  done
  echo "$first" > "$out/upstream"
}

decoder_judge_all() {
  local cases=$1 judge=$2 dir start
  start=$(date +%s)
  n=0
  for dir in "$cases"/*/; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    "$judge" "$(basename "$dir")" &
    n=$((n + 1))
  done
  wait
  elapsed=$(( $(date +%s) - start ))
}

decoder_compare_all() {
  local dir c out
  for dir in "$1"/*/; do
    c=$(basename "$dir")
    out=$T/$c
    if [ -f "$out/unjudged" ]; then
      not_ok "$c: cannot be judged: $(cat "$out/unjudged")"
      unjudged=$((unjudged + 1))
    elif [ -f "$out/skip" ]; then
      echo "ok $((TAP_N + 1)) - $c # SKIP $(cat "$out/skip")"
      TAP_N=$((TAP_N + 1)); skipped=$((skipped + 1))
    else
      decoder_compare "$c"
    fi
  done
}

decoder_compare() {
  local c=$1 out=$T/$1 v u codes loose
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
  elif [[ $u == unstable:* ]]; then
    echo "ok $((TAP_N + 1)) - $c # SKIP upstream's verdict changes from run to run, not kept: $(echo "${u#unstable: }" | cut -c1-300)"
    TAP_N=$((TAP_N + 1)); skipped=$((skipped + 1))
  else
    not_ok "$c: upstream ${u%%:*}, the validator $v" "upstream: $u" \
      "validator: $(jq -c '[.diagnostics[]? | {severity, code, path}]' "$out/validator.json" 2>/dev/null | cut -c1-600)"
    disagree=$((disagree + 1))
  fi
}
