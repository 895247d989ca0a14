#!/usr/bin/env bash
# Generates the local control plane's PKI with openssl, once per cluster directory:
# a CA, the API server's serving cert, the service-account key pair, client certs for the
# admin (system:masters), the controller manager, the scheduler, the API server's kubelet
# client, and a serving cert for the simulated kubelets (nodesim). All valid for 127.0.0.1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
P="$CLUSTER_DIR/pki"
[ -f "$P/.complete" ] && exit 0
rm -rf "$P" && mkdir -p "$P" && cd "$P"
umask 077

openssl genrsa -out ca.key 2048 2>/dev/null
openssl req -x509 -new -nodes -key ca.key -sha256 -days 3650 -subj "/CN=local-kubernetes-ca" -out ca.crt

# sign NAME SUBJECT [SAN] [usage]
sign() {
  local name=$1 subj=$2 san=${3:-} usage=${4:-clientAuth}
  openssl genrsa -out "$name.key" 2048 2>/dev/null
  openssl req -new -key "$name.key" -subj "$subj" -out "$name.csr"
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -z "$san" ] || echo "subjectAltName=$san"
  } > "$name.ext"
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -sha256 \
    -extfile "$name.ext" -out "$name.crt" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
}

sign apiserver "/CN=kube-apiserver" \
  "IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local" \
  serverAuth
sign admin "/O=system:masters/CN=admin"
sign controller-manager "/CN=system:kube-controller-manager"
sign scheduler "/CN=system:kube-scheduler"
sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
sign kubelet "/CN=system:node:nodesim" "IP:127.0.0.1,DNS:localhost" serverAuth
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
chmod 0644 ./*.crt sa.pub
touch .complete
