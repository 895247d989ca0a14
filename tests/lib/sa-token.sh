# Service account helpers for the tests (sourced): tokens from the token controller's
# Secrets (kube-apiserver v1.20 on the plane), and kubeconfigs that use them.
#
#   sa_token NS NAME           prints the service account's token (waits up to 20 s)
#   sa_kubeconfig NS NAME OUT  writes a kubeconfig for the plane with that token

sa_token() {
  local ns=$1 name=$2 secret i
  for i in $(seq 1 100); do
    secret=$(kubectl -n "$ns" get serviceaccount "$name" -o jsonpath='{.secrets[0].name}' 2>/dev/null)
    [ -n "$secret" ] && break
    sleep 0.2
  done
  [ -n "$secret" ] || { echo "no token secret for $ns/$name" >&2; return 1; }
  kubectl -n "$ns" get secret "$secret" -o jsonpath='{.data.token}' | base64 -d
}

sa_kubeconfig() {
  local ns=$1 name=$2 out=$3 token
  token=$(sa_token "$ns" "$name") || return 1
  ( umask 077
    cat > "$out" <<KC
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$CLUSTER_DIR/pki/ca.crt"}
users:
- name: $name
  user: {token: "$token"}
contexts:
- name: local
  context: {cluster: local, user: $name}
current-context: local
KC
  )
}
