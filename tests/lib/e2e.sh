# Helpers the end-to-end scripts share (sourced after tap.sh). Each script starts its own
# processes and simulated nodes on a plane that later scripts use too.
#
#   alive PID, stop_pid PID
#                         tests/lib/proc.sh: a process that has not exited (a zombie has);
#                         SIGTERM, up to STOP_WAIT_S (10) s, then SIGKILL
#   free_port             a free TCP port on 127.0.0.1
#   nodes_ready NODE...   succeeds once every named node reports Ready
#   only_nodes NODE...    fails, naming them, while any other node is registered (placements
#                         and failure summaries count every node on the plane)
#   DAEMON_WRAP           what the abuse suites put before the daemons they start: nothing, or
#                         with ABUSE_VALGRIND=1 valgrind's memcheck (errors and definite or
#                         indirect leaks; its ERROR SUMMARY ends the daemon's log), and then
#                         STOP_WAIT_S is 120 for its leak check at exit and MEASURED_SKIP
#                         skips the checks of time, rate and memory bounds (tap.sh: measured)
#   memcheck_reports LOG...
#                         the memory checkers' reports in daemons' logs, one line each (none
#                         when clean): ASan, UBSan, LeakSanitizer (written when a sanitized
#                         daemon exits: stop it first) and valgrind's error summaries
#   api METHOD PATH [CURL-ARGS...]
#                         one request to the API server with curl and the kubeconfig's admin
#                         credentials; the body on stdout; fails on an HTTP error (printing
#                         the error's body). For polls and creates in loops: a kubectl
#                         process per call costs 0.1-0.3 s of CPU, curl a few milliseconds
#   api_get PATH          api GET PATH
#   api_delete PATH...    DELETEs every PATH with one curl over one connection (kubectl
#                         sends one request per object and throttles itself to 5 a second:
#                         40 s for 200 objects); one already gone is fine; nothing waits
#   api_create PATH       POSTs the JSON object on stdin to the collection PATH
#   api_merge PATH JSON   a JSON merge patch of the object at PATH
#   docs_json FILE        each object of the YAML (or JSON) FILE as one line of JSON, in
#                         order (one kubectl for all of them)
#   api_paths             for each JSON object on stdin (one a line), "KIND PATH": its kind
#                         and the API path of the collection it belongs to (the kinds the
#                         tests create; kubectl's default namespace when it names none), one
#                         jq for all of them
#
# The tests' Python modules (extender_http.py: the HTTP side of a test's scheduler extender) are
# importable by the Python programs a script runs.

. "$ROOT/tests/lib/proc.sh"

export PYTHONPATH="$ROOT/tests/lib${PYTHONPATH:+:$PYTHONPATH}"

DAEMON_WRAP=()
if [ "${ABUSE_VALGRIND:-0}" = 1 ]; then
  DAEMON_WRAP=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
               --show-leak-kinds=definite,indirect --track-fds=no)
  : "${STOP_WAIT_S:=120}"
  MEASURED_SKIP="the daemons run under valgrind"
fi

free_port() { python3 "$(dirname "${BASH_SOURCE[0]}")/free-port.py"; }

nodes_ready() {
  local out
  out=$(kubectl get nodes "$@" \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}') || return 1
  [ "$(grep -c '^True$' <<< "$out")" = "$#" ] || { echo "$(grep -c '^True$' <<< "$out") of $# Ready"; return 1; }
}

only_nodes() {
  local others
  others=$(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | grep -vxF -f <(printf '%s\n' "$@"))
  [ -z "$others" ] || { echo "other nodes on the plane:" $others; return 1; }
}

memcheck_reports() {
  grep -h -e 'ERROR: AddressSanitizer' -e 'runtime error:' -e 'ERROR: LeakSanitizer' -e 'ERROR SUMMARY: [1-9]' \
    "$@" 2>/dev/null
  return 0
}

api_init() {
  [ -z "${API_SERVER:-}" ] || return 0
  API_SERVER=$(awk '/server:/ { print $2; exit }' "$KUBECONFIG")
  API_CURL=(curl -s --fail-with-body --max-time 30
            --cacert "$(awk '/certificate-authority:/ { print $2; exit }' "$KUBECONFIG")"
            --cert "$(awk '/client-certificate:/ { print $2; exit }' "$KUBECONFIG")"
            --key "$(awk '/client-key:/ { print $2; exit }' "$KUBECONFIG")")
}
api() {
  local method=$1 path=$2; shift 2
  api_init
  "${API_CURL[@]}" -X "$method" "$@" "$API_SERVER$path"
}
api_get() { api GET "$1"; }
api_delete() {
  [ $# -gt 0 ] || return 0
  api_init
  "${API_CURL[@]}" -X DELETE "${@/#/$API_SERVER}" >/dev/null 2>&1
  return 0
}
api_create() { api POST "$1" -H 'Content-Type: application/json' --data-binary @-; }
api_merge() { api PATCH "$1" -H 'Content-Type: application/merge-patch+json' --data-binary "$2"; }
docs_json() {
  kubectl create --dry-run=client -o json -f "$1" | jq -c 'if .kind == "List" then .items[] else . end'
}
api_paths() {
  jq -r '{Pod: "pods", ConfigMap: "configmaps", Secret: "secrets", Service: "services",
          PersistentVolumeClaim: "persistentvolumeclaims", ReplicaSet: "replicasets",
          Deployment: "deployments", PodDisruptionBudget: "poddisruptionbudgets"}[.kind] as $namespaced
    | {PersistentVolume: "persistentvolumes", StorageClass: "storageclasses", PriorityClass: "priorityclasses",
       Namespace: "namespaces", Node: "nodes"}[.kind] as $cluster
    | if ($namespaced // $cluster) == null then error("api_paths: no path known for kind \(.kind)") else . end
    | .kind + " " + (if .apiVersion == "v1" then "/api/v1" else "/apis/" + .apiVersion end)
      + (if $namespaced then "/namespaces/" + (.metadata.namespace // "default") else "" end)
      + "/" + ($namespaced // $cluster)'
}
