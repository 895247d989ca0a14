# Shared settings for the local control plane scripts (sourced, not run).
# The expensive part, the Kubernetes binaries, lives outside the clone in a cache keyed by
# the Debian source package version; the running plane's state lives in the clone's build/.

# HOME may be unset (processes started by nodesim get a pod's environment): ask passwd.
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
: "${SPO_CACHE_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/scheduler-policy-operator}"
CLUSTER_REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${CLUSTER_DIR:=$CLUSTER_REPO_ROOT/build/cluster}"

# The source package version, e.g. 1.20.5+really1.20.2-1.1+deb12u1 (the cache key).
k8s_source_version() {
  apt-cache showsrc kubernetes 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V | tail -n 1
}

# Where the binaries for the current source version are (or will be) cached.
k8s_bin_dir() {
  local v
  v=$(k8s_source_version)
  [ -n "$v" ] || { echo "cluster: no 'kubernetes' source package known to apt (deb-src missing?)" >&2; return 1; }
  echo "$SPO_CACHE_DIR/kubernetes-$v/bin"
}

log() { printf 'cluster: %s\n' "$*" >&2; }
