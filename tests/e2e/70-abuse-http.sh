#!/usr/bin/env bash
# Hostile and careless HTTP clients against both daemons on the local plane: policy-scheduler
# (plain health port, HTTPS /metrics) and scheduler-operator (plain --listen, HTTPS
# --secure-listen), while a steady stream of pods is scheduled. Phases, one after another:
#   hold       1,000 connections to each plain port (and 300 to each HTTPS port) opened and
#              held, then closed (the plain ports used to stop for good after 64);
#   slowloris  200 clients on each plain port sending a header byte every 10 s;
#   tokens     random bearer tokens on both /metrics while the API server is frozen in short
#              bursts (SIGSTOP/SIGCONT of the plane's kube-apiserver; the scheduler used to
#              run the reviews on its scheduling loop);
#   oversized  64 KiB of headers and a 1 MiB body on every port;
#   TLS 1.0    handshakes (openssl s_client -tls1) on both HTTPS ports.
# Throughout: /healthz answers within 1 s on every port, pods are bound at no less than half
# the undisturbed rate, neither lease changes hands, RSS stays bounded; afterwards a scrape
# with the shipped metrics reader's token works even with the API server frozen (answered
# from the review cache, which the random tokens could not flush).
# The abusers' connections can fill a listening socket's backlog faster than any server
# accepts on two loaded cores; the servers' backlog is large enough for this suite.
# The abusers connect from 127.0.0.2.. (other clients than the prober at 127.0.0.1, as a
# hostile pod is another client than the kubelet). Client side: tests/abuse/http-abuse.py.
# Runs under tools/with-cluster; BIN_DIR=build/san/bin runs the daemons under ASan+UBSan
# (make abuse-asan), ABUSE_VALGRIND=1 under valgrind (make abuse-valgrind: the checks of
# time, rate and RSS bounds are skipped then); either way the daemons are stopped at the end
# and their logs must hold no report, leaks found at exit included.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/e2e.sh"
cd "$ROOT" || exit 1
. tests/lib/stack.sh
. tests/lib/sa-token.sh
: "${CLUSTER_DIR:?run under tools/with-cluster}"
ABUSE=(python3 "$ROOT/tests/abuse/http-abuse.py")
# Under ASan the RSS witness would count the allocator's quarantine of freed blocks (256 MiB
# by default), not the daemons' growth: a small quarantine keeps the bound meaningful.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
T=$(mktemp -d)
NS=abuse-http
SCHED=abuse-scheduler
NODES=(abuse-0 abuse-1 abuse-2)
RATE=${ABUSE_POD_RATE:-10}
APISERVER=$(cat "$CLUSTER_DIR/pids/kube-apiserver.pid")
NS_PID= S_PID= PROBE_PID= STREAM_PID= LEASE_PID=
LOG_S="$CLUSTER_DIR/logs/policy-scheduler-abuse-http.log"
OP_LOG="$CLUSTER_DIR/logs/operator-abuse.log"

cleanup() {
  kill -CONT "$APISERVER" 2>/dev/null
  stop_pid "$PROBE_PID"
  stop_pid "$STREAM_PID"
  stop_pid "$LEASE_PID"
  stop_pid "$S_PID"
  stack_stop_pid operator-abuse
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-abuse.pid"
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
    kubectl delete clusterrolebinding "$NS-scraper" --ignore-not-found
    kubectl -n kube-system delete lease "$SCHED" --ignore-not-found --wait=false
    # the operator's scheduler pods ran on the simulated nodes: gone with them, not left
    # Running for the next script on the plane to find
    for n in "${NODES[@]}"; do
      kubectl -n openshift-kube-scheduler delete pods --field-selector "spec.nodeName=$n" --grace-period=0 --force
    done
    kubectl delete node "${NODES[@]}" --ignore-not-found --wait=false
    kubectl delete lease -n kube-node-lease "${NODES[@]}" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

check "CRD, namespaces and RBAC install" stack_install
wait_for "no other script's nodes are left on the plane" 30 only_nodes "${NODES[@]}"
"$BIN_DIR/nodesim" --nodes 3 --name-prefix abuse --cpu 64 --memory 256Gi --pods 5000 \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/nodesim" --pid-file "$CLUSTER_DIR/pids/nodesim-abuse.pid" \
  >> "$CLUSTER_DIR/logs/nodesim-abuse.log" 2>&1 &
NS_PID=$!
wait_for "nodesim registers three nodes" 30 nodes_ready "${NODES[@]}"
# An earlier run's namespace may still be terminating: its pods, going, would be counted.
ns_absent() { ! kubectl get namespace "$NS" >/dev/null 2>&1; }
setup_wait "no earlier run's namespace $NS is left" 120 ns_absent
kubectl create namespace "$NS" >/dev/null

S_PORT=$(free_port)
S_SPORT=$(free_port)
: > "$LOG_S"
${DAEMON_WRAP[@]+"${DAEMON_WRAP[@]}"} "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --scheduler-name "$SCHED" --leader-elect=true \
  --leader-elect-resource-name "$SCHED" --bind-address 127.0.0.1 --secure-port "$S_SPORT" \
  --port "$S_PORT" --authentication-token-webhook-cache-ttl=2m --authorization-webhook-cache-authorized-ttl=2m \
  >> "$LOG_S" 2>&1 &
S_PID=$!
OP_PORT=$(stack_operator_start abuse --identity abuse)
OP_SPORT=$(cat "$CLUSTER_DIR/pids/operator-abuse.metrics-port")
OP_PID=$(cat "$CLUSTER_DIR/pids/operator-abuse.pid")
wait_for "policy-scheduler becomes ready" 30 curl -sf -m 2 "http://127.0.0.1:$S_PORT/readyz"
wait_for "scheduler-operator answers /healthz" 30 curl -sf -m 2 "http://127.0.0.1:$OP_PORT/healthz"
S_ID=$(sed -n 's/.*waiting for the lease .* as \([^ ]*\)$/\1/p' "$LOG_S" | tail -1)
s_holder() { kubectl -n kube-system get lease "$SCHED" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
op_holder() {
  kubectl -n openshift-kube-scheduler-operator get lease scheduler-operator-lock \
    -o jsonpath='{.spec.holderIdentity}' 2>/dev/null
}
s_leads() { [ -n "$S_ID" ] && [ "$(s_holder)" = "$S_ID" ]; }
op_leads() { [ "$(op_holder)" = abuse ]; }
wait_for "policy-scheduler holds its lease" 30 s_leads
wait_for "scheduler-operator holds its lease" 60 op_leads
TOKEN=$(stack_scrape_token)
scrape() { # PORT [TIMEOUT [TOKEN]] -> "STATUS SECONDS"
  curl -sk -m "${2:-10}" -o /dev/null -w '%{http_code} %{time_total}' -H "Authorization: Bearer ${3:-$TOKEN}" \
    "https://127.0.0.1:$1/metrics"
}
check_eq "Prometheus's token scrapes the scheduler's /metrics" 200 "$(scrape "$S_SPORT" | cut -d' ' -f1)"
check_eq "... and the operator's" 200 "$(scrape "$OP_SPORT" | cut -d' ' -f1)"

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
RSS_S0=$(rss "$S_PID") RSS_OP0=$(rss "$OP_PID")
# from the API server, not from the scheduler's own port (which is under attack)
# A kubectl that fails under load (a timeout) must not read as "0 bound": it is asked again.
bound() {
  local out try
  for try in 1 2 3 4 5; do
    if out=$(kubectl -n "$NS" get pods --field-selector spec.nodeName!= -o name); then
      grep -c . <<< "$out"
      return
    fi
    sleep 0.5
  done
  echo "kubectl could not count the bound pods" >&2
  return 1
}

# ---- the witnesses: a prober, the lease holders, the pod stream -------------------------------
"${ABUSE[@]}" probe --seconds 300 --interval 0.2 \
  --target "127.0.0.1:$S_PORT,https://127.0.0.1:$S_SPORT,127.0.0.1:$OP_PORT" > "$T/probe.log" 2>/dev/null &
PROBE_PID=$!
( while :; do echo "$(date +%s.%N) $(s_holder) $(op_holder)"; sleep 1; done ) > "$T/lease.log" 2>/dev/null &
LEASE_PID=$!
"${ABUSE[@]}" pods --target "127.0.0.1:$API_PORT" --pki "$CLUSTER_DIR/pki" --namespace "$NS" \
  --scheduler "$SCHED" --rate "$RATE" --seconds 300 > "$T/pods.log" 2> "$T/pods.err" &
STREAM_PID=$!

# mark NAME: the phase boundary, with the time and the scheduler's bind count
mark() { echo "# ${SECONDS} s: $1"; echo "$1 $(date +%s.%N) $(bound)" >> "$T/phases"; }
sleep 2   # the stream gets going
mark baseline
sleep 6
mark hold
ABUSERS=()
"${ABUSE[@]}" hold --target "127.0.0.1:$S_PORT" --count 1000 --seconds 5 > "$T/hold-s" & ABUSERS+=($!)
"${ABUSE[@]}" hold --target "127.0.0.1:$OP_PORT" --count 1000 --seconds 5 > "$T/hold-op" & ABUSERS+=($!)
"${ABUSE[@]}" hold --target "127.0.0.1:$S_SPORT" --count 300 --seconds 5 > "$T/hold-ss" & ABUSERS+=($!)
"${ABUSE[@]}" hold --target "127.0.0.1:$OP_SPORT" --count 300 --seconds 5 > "$T/hold-ops" & ABUSERS+=($!)
wait "${ABUSERS[@]}"
sleep 1   # closed: the ports must still answer
mark slowloris
ABUSERS=()
"${ABUSE[@]}" slowloris --target "127.0.0.1:$S_PORT" --count 200 --interval 10 --seconds 15 > "$T/slow-s" & ABUSERS+=($!)
"${ABUSE[@]}" slowloris --target "127.0.0.1:$OP_PORT" --count 200 --interval 10 --seconds 15 > "$T/slow-op" & ABUSERS+=($!)
wait "${ABUSERS[@]}"
kubectl -n "$NS" create serviceaccount scraper >/dev/null
kubectl create clusterrolebinding "$NS-scraper" --clusterrole=scheduler-policy-metrics-reader \
  --serviceaccount="$NS:scraper" >/dev/null
FRESH=$(sa_token "$NS" scraper)
mark tokens
# A second scraper's first scrapes just before: their reviews are fresh in the caches
# (60 s for the operator, 2 min for the scheduler here) when the flood starts.
check_eq "a second scraper's token is reviewed and allowed by both daemons before the token flood" "200 200" \
  "$(scrape "$S_SPORT" 10 "$FRESH" | cut -d' ' -f1) $(scrape "$OP_SPORT" 10 "$FRESH" | cut -d' ' -f1)"
"${ABUSE[@]}" tokens --target "127.0.0.1:$S_SPORT" --count 10000 --connections 32 --seconds 40 > "$T/tokens-s" &
TOK_S=$!
"${ABUSE[@]}" tokens --target "127.0.0.1:$OP_SPORT" --count 10000 --connections 32 --seconds 35 > "$T/tokens-op" &
TOK_OP=$!
# the API server slowed: frozen 0.3 s of every second while the tokens fly
while alive "$TOK_S" || alive "$TOK_OP"; do
  kill -STOP "$APISERVER"; sleep 0.3; kill -CONT "$APISERVER"; sleep 0.7
done
wait "$TOK_S" "$TOK_OP"
# Right after the flood, a scrape with the API server frozen (2 s at most, well within the
# leases) can only be answered from the review cache (the scheduler's TTL is 2 min here,
# the operator's 60 s).
kill -STOP "$APISERVER"
scrape "$S_SPORT" 2 "$FRESH" > "$T/cached-s" &
CACHED_PIDS=($!)
scrape "$OP_SPORT" 2 "$FRESH" > "$T/cached-op" &
CACHED_PIDS+=($!)
wait "${CACHED_PIDS[@]}"
kill -CONT "$APISERVER"
CACHED_S=$(cat "$T/cached-s") CACHED_OP=$(cat "$T/cached-op")
mark oversized
for target in "127.0.0.1:$S_PORT" "127.0.0.1:$OP_PORT" "https://127.0.0.1:$S_SPORT" "https://127.0.0.1:$OP_SPORT"; do
  echo "$target $("${ABUSE[@]}" oversized --target "$target")"
done > "$T/oversized"
tls1() { # PORT: succeeds when a TLS 1.0 handshake completes
  timeout 5 openssl s_client -connect "127.0.0.1:$1" -tls1 -cipher 'DEFAULT@SECLEVEL=0' < /dev/null 2>&1 |
    grep -q '^ *Protocol *: TLSv1$'
}
TLS1_S=refused TLS1_OP=refused
tls1 "$S_SPORT" && TLS1_S=accepted
tls1 "$OP_SPORT" && TLS1_OP=accepted
mark end
sleep 1
stop_pid "$STREAM_PID"; STREAM_PID=
stop_pid "$PROBE_PID"; PROBE_PID=
stop_pid "$LEASE_PID"; LEASE_PID=
RSS_S1=$(rss "$S_PID") RSS_OP1=$(rss "$OP_PID")


for f in hold-s hold-op hold-ss hold-ops slow-s slow-op tokens-s tokens-op oversized; do
  echo "# $f: $(cat "$T/$f")"
done
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- checks, per phase ---------------------------------------------------------------------------
# probes_in PHASE TARGET_REGEX BOUND: "N SLOW FAILED MAX" for the probes within the phase
probes_in() {
  local from to
  read -r from to < <(awk -v p="$1" '$1 == p { f = $2; getline; print f, $2 }' "$T/phases")
  awk -v f="$from" -v t="$to" -v re="$2" -v b="$3" '$1 >= f && $1 < t && $2 ~ re {
      n++; if ($3 != 200) bad++; else if ($4 >= b) slow++; if ($4 > max) max = $4 }
    END { printf "%d %d %d %.3f\n", n, slow + 0, bad + 0, max + 0 }' "$T/probe.log"
}
healthy_within() { # PHASE TARGET_REGEX SECONDS
  local n slow bad max
  read -r n slow bad max < <(probes_in "$1" "$2" "$3")
  echo "# $1 $2: $n probes, $bad failed, $slow over $3 s, slowest ${max}s"
  [ "$n" -gt 0 ] && [ "$bad" = 0 ] && [ "$slow" = 0 ]
}
# rate_in PHASE: binds a second within the phase
rate_in() {
  awk -v p="$1" '$1 == p { t = $2; b = $3; getline; printf "%.2f\n", ($3 - b) / ($2 - t) }' "$T/phases"
}
for phase in hold slowloris tokens oversized; do
  echo "# slowest /healthz in $phase: scheduler $(probes_in "$phase" "^127.0.0.1:$S_PORT\$" 1 | cut -d' ' -f4) s," \
    "its HTTPS $(probes_in "$phase" "^https://127.0.0.1:$S_SPORT\$" 1 | cut -d' ' -f4) s," \
    "operator $(probes_in "$phase" "^127.0.0.1:$OP_PORT\$" 1 | cut -d' ' -f4) s"
done
BASE=$(rate_in baseline)
echo "# bind rates: baseline $BASE/s, hold $(rate_in hold)/s, slowloris $(rate_in slowloris)/s, tokens $(rate_in tokens)/s (arrivals $RATE/s)"
measured check "pods are bound at the arrival rate when undisturbed (${BASE}/s of $RATE/s)" \
  awk -v b="$BASE" -v r="$RATE" 'BEGIN { exit !(b >= r * 0.7) }'
# Every port the kubelet may probe answers within 1 s: the plain ones, and the scheduler's
# HTTPS /healthz (kubeadm's liveness and startup probes), served on a thread of its own.
for phase in hold slowloris tokens oversized; do
  for port in "127.0.0.1:$S_PORT" "127.0.0.1:$OP_PORT"; do
    measured check "$phase: liveness /healthz on $port answers every probe within 1 s" healthy_within "$phase" "^$port\$" 1.0
  done
  measured check "$phase: liveness /healthz on the scheduler's HTTPS port answers every probe within 1 s" \
    healthy_within "$phase" "^https://127.0.0.1:$S_SPORT\$" 1.0
done
for phase in hold slowloris tokens; do
  r=$(rate_in "$phase")
  measured check "$phase: pods are bound at no less than half the undisturbed rate ($r/s against $BASE/s)" \
    awk -v a="$r" -v b="$BASE" 'BEGIN { exit !(a >= b / 2) }'
done
check_match "slowloris: the scheduler's health port closed every slow client (no request may take over 10 s)" \
  'closed_by_server=200 still_open=0' "$(cat "$T/slow-s")"
check_match "slowloris: the operator's health port closed every slow client" \
  'closed_by_server=200 still_open=0' "$(cat "$T/slow-op")"
# None served is checked everywhere; all answered in the flood's time is a rate, which the
# memory checkers slow many times.
check "tokens: no random token was served by the scheduler (no 200 among its answers)" \
  bash -c '! grep -q "status_200=" "$1"' _ "$T/tokens-s"
check "tokens: ... nor by the operator" bash -c '! grep -q "status_200=" "$1"' _ "$T/tokens-op"
measured check_match "tokens: 10,000 random tokens were answered by the scheduler (401 or 429)" \
  '^requests=10000 ' "$(cat "$T/tokens-s")"
measured check_match "tokens: ... and by the operator" '^requests=10000 ' "$(cat "$T/tokens-op")"
check_eq "oversized headers and bodies are refused on every port (431/413 or closed)" 0 \
  "$(awk '{ for (i = 2; i <= NF; i++) if ($i ~ /=200$/) n++ } END { print n + 0 }' "$T/oversized")"
check_eq "TLS 1.0: the scheduler's HTTPS port refuses the handshake" refused "$TLS1_S"
check_eq "TLS 1.0: the operator's HTTPS port refuses the handshake" refused "$TLS1_OP"
check_eq "the scheduler's lease never changed hands" "$S_ID" "$(awk '{ print $2 }' "$T/lease.log" | sort -u | tr '\n' ' ' | sed 's/ $//')"
check_eq "the operator's lease never changed hands" abuse "$(awk '{ print $3 }' "$T/lease.log" | sort -u | tr '\n' ' ' | sed 's/ $//')"
echo "# RSS kB: scheduler $RSS_S0 -> $RSS_S1, operator $RSS_OP0 -> $RSS_OP1"
measured check "the scheduler's RSS stayed bounded (grew under 64 MiB)" test $((RSS_S1 - RSS_S0)) -lt 65536
measured check "the operator's RSS stayed bounded (grew under 64 MiB)" test $((RSS_OP1 - RSS_OP0)) -lt 65536
measured check_match "random tokens did not flush the review cache: the scheduler serves the scraper's token with the API server frozen" \
  '^200 0\.' "$CACHED_S"
measured check_match "... and so does the operator" '^200 0\.' "$CACHED_OP"
check_eq "Prometheus's token still scrapes the scheduler afterwards" 200 "$(scrape "$S_SPORT" | cut -d' ' -f1)"
check_eq "... and the operator" 200 "$(scrape "$OP_SPORT" | cut -d' ' -f1)"
check "policy-scheduler is still running" alive "$S_PID"
check "scheduler-operator is still running" alive "$OP_PID"
# stopped as the kubelet stops them: a sanitized build reports its leaks as it exits
stop_pid "$S_PID"; S_PID=
stack_stop_pid operator-abuse
check_eq "no sanitizer report in the daemons' logs, their exit's leak check included" "" \
  "$(memcheck_reports "$LOG_S" "$OP_LOG")"
finish
