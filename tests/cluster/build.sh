#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kube-scheduler and kubectl from Debian's
# `kubernetes` source package (bookworm: upstream v1.20.2, the last line with the legacy
# scheduler Policy API), offline, the way debian/rules does, and caches them outside the
# clone keyed by the source package version. A cached build returns at once.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SRC_LIST=/etc/apt/sources.list.d/scheduler-policy-operator-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  log "adding a deb-src entry for bookworm ($SRC_LIST)"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO tee "$SRC_LIST" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  $SUDO apt-get update -qq
fi

BIN=$(k8s_bin_dir)
WANT=(kube-apiserver kube-controller-manager kube-scheduler kubectl)
have_all=1
for b in "${WANT[@]}"; do [ -x "$BIN/$b" ] || have_all=0; done
if [ $have_all = 1 ]; then
  exit 0
fi

CACHE=$(dirname "$BIN")
WORK="$CACHE/src"
rm -rf "$WORK" && mkdir -p "$WORK"
log "building Kubernetes from source into $CACHE (first run only; about 5 minutes on 2 cores)"
cd "$WORK"
apt-get source -qq kubernetes >/dev/null 2>&1 || apt-get source kubernetes
apt-get source -qq golang-github-modern-go-reflect2 >/dev/null 2>&1 || apt-get source golang-github-modern-go-reflect2
K8S=$(find "$WORK" -maxdepth 1 -type d -name 'kubernetes-*' | head -n 1)
R2=$(find "$WORK" -maxdepth 1 -type d -name 'golang-github-modern-go-reflect2-*' | head -n 1)
[ -d "$K8S" ] && [ -d "$R2" ] || { log "apt-get source did not produce the expected trees"; exit 1; }

# The vendored reflect2 v1.0.1 faults at run time under Go >= 1.18 (UnsafeMapType.UnsafeIterate
# on the first map encode); 1.0.2 is a drop-in replacement. Keep only the Go sources.
V="$K8S/vendor/github.com/modern-go/reflect2"
rm -rf "$V" && mkdir -p "$V"
cp "$R2"/*.go "$R2"/*.s "$V"/ 2>/dev/null || cp "$R2"/*.go "$V"/
rm -f "$V"/*_test.go
cp "$R2/LICENSE" "$V"/ 2>/dev/null || true

cd "$K8S"
export GOPATH="$K8S/.go" GOCACHE="$CACHE/gocache" PATH="/usr/lib/go-1.19/bin:$PATH"
export CGO_ENABLED=0 GOFLAGS="-tags=providerless" GO111MODULE=on GOPROXY=off
mkdir -p .go/src/k8s.io
[ -L .go/src/k8s.io/kubernetes ] || ln -s ../../.. .go/src/k8s.io/kubernetes
env HOME="$WORK" make WHAT="cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler cmd/kubectl"

mkdir -p "$BIN"
for b in "${WANT[@]}"; do install -m 0755 "_output/bin/$b" "$BIN/$b"; done
"$BIN/kube-apiserver" --version
# The sources and the Go build cache are several GiB; only the binaries are kept.
cd "$CACHE" && rm -rf "$WORK" "$CACHE/gocache"
log "cached in $BIN"
