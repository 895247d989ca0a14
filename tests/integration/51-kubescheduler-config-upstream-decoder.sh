#!/usr/bin/env bash
# The validator agrees with kube-scheduler v1.20.2 on every KubeSchedulerConfiguration case.
#
# Each case under tests/data/kubescheduler-config/ is given, unchanged, to the cached upstream
# kube-scheduler as --config and to policy-validator (--output json). Then, per case:
#   - if upstream refuses to start, the validator rejects the case;
#   - if upstream starts, the validator accepts it, or rejects it only by its deliberately
#     stricter rules, listed with their reasons under "Deliberately stricter than
#     kube-scheduler" in config/README.md (both tables: the Policy's parser rules
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
MIN_CASES=100
. tests/lib/decoder.sh
decoder_setup ".*[Dd]eliberately stricter than kube-scheduler"

# upstream's reason for refusing: what follows the flag dump, without cobra's indented usage
# text
refusal() {
  grep -av 'flags.go' "$1" | grep -av '^ ' | grep -av '^$' | grep -av '^Usage:\|^Flags:\|^  -' |
    head -n 3 | tr '\n' ' ' | cut -c1-300
}

# judge CASE: both verdicts into $T/CASE/.
judge() {
  local c=$1 dir=$CASES/$1 out=$T/$1 input= opt gates= vargs=()
  mkdir -p "$out"
  [ -f "$dir/options" ] && while read -r opt; do
    case $opt in
      v1beta2) echo "skip: kubescheduler.config.k8s.io/v1beta2 is kube-scheduler v1.22's API" > "$out/skip"; return ;;
      feature-gate-off) gates=DefaultPodTopologySpread=false; vargs+=(--feature-gates "$gates") ;;
    esac
  done < "$dir/options"
  for f in input.yaml input.json; do [ -f "$dir/$f" ] && { input=$dir/$f; break; }; done
  [ -n "$input" ] || { echo "skip: no input" > "$out/skip"; return; }
  # v1 and v1beta3 are read as kube-scheduler 1.32 reads them, not as v1.20 (which refuses both)
  if grep -Eq '^[[:space:]]*"?apiVersion"?[[:space:]]*:[[:space:]]*"?kubescheduler\.config\.k8s\.io/v1(beta3)?"?[[:space:]]*,?[[:space:]]*$' "$input"; then
    echo "skip: the 1.32 line's API, not v1.20's" > "$out/skip"; return
  fi
  decoder_validate "$out" --kind KubeSchedulerConfiguration "${vargs[@]}" "$input"
  decoder_upstream "$out" "$(echo "$c" | cut -c1-60)" refusal \
    unshare -rn sh -c 'ip link set lo up && exec "$@"' sh "$K8S_BIN/kube-scheduler" --config "$input" \
    --master https://127.0.0.1:6443 --secure-port 0 ${gates:+--feature-gates "$gates"} -v 1
}

decoder_judge_all "$CASES" judge

decoder_compare_all "$CASES"
compared=$((agree + stricter + disagree))
if [ "$compared" -ge "$MIN_CASES" ]; then
  ok "at least $MIN_CASES cases compared with upstream ($compared)"
else
  not_ok "only $compared cases compared with upstream; at least $MIN_CASES are required"
fi
echo "# $n cases in ${elapsed}s ($JOBS at a time): $agree agree, $stricter rejected only by stricter rules, $disagree disagree, $skipped skipped"
finish
