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
#     stricter than kube-scheduler" in config/README.md (this script reads that
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
. tests/lib/decoder.sh
# The stricter rules: `code` in the first column of the README's table.
decoder_setup "Deliberately stricter than kube-scheduler"

# upstream's reason for refusing: klog's fatal line, or cobra's error (the last line that is
# not a flag dump)
refusal() {
  grep -av 'flags.go' "$1" | grep -aE '^(F[0-9]{4} |Error: |invalid policy|couldn)' | head -n 1 | cut -c1-300
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
  local vargs=(--kind Policy --max-size "$MAX_SIZE")
  [ -n "$configmap" ] && vargs+=(--configmap)
  decoder_validate "$out" "${vargs[@]}" "$input"

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
  local name
  name=$(echo "$c" | tr 'A-Z_' 'a-z-' | cut -c1-50)
  local up=("$name" refusal "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$policy"
            --scheduler-name "decoder-$name" --leader-elect=false --port 0 --secure-port 0 -v 1)
  decoder_upstream "$out" "${up[@]}"
  decoder_upstream_confirm "$out" "${up[@]}"
}

decoder_judge_all "$CASES" judge

decoder_compare_all "$CASES"
echo "# $n cases in ${elapsed}s ($JOBS at a time): $agree agree, $stricter rejected only by stricter rules, $disagree disagree, $unjudged cannot be judged, $skipped unstable upstream"
finish
