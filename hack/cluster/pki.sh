# shellcheck shell=bash
# Cluster PKI with openssl and one kubeconfig per client. Sourced by hack/local-cluster.sh
# after common.sh; does nothing when $PKI/ca.crt exists (certificates live as long as the state dir).

# cert NAME SUBJECT EXTENDED_KEY_USAGE [SUBJECT_ALT_NAMES]: a key and a CA-signed certificate.
cert() {
  openssl req -newkey rsa:2048 -nodes -keyout "$PKI/$1.key" -out "$PKI/$1.csr" -subj "$2" 2>/dev/null
  {
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$3"
    [[ -z ${4:-} ]] || echo "subjectAltName=$4"
  } >"$PKI/$1.ext"
  openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -out "$PKI/$1.crt" -days 365 -extfile "$PKI/$1.ext" 2>/dev/null
  rm -f "$PKI/$1.csr" "$PKI/$1.ext"
}

# kubeconfig FILE USER: a kubeconfig for a client certificate, certificates embedded.
kubeconfig() {
  local kc=$1 user=$2
  kubectl config --kubeconfig "$kc" set-cluster spiralbench --server "https://$NODE_IP:$APISERVER_PORT" \
    --certificate-authority "$PKI/ca.crt" --embed-certs >/dev/null
  kubectl config --kubeconfig "$kc" set-credentials "$user" --client-certificate "$PKI/$user.crt" \
    --client-key "$PKI/$user.key" --embed-certs >/dev/null
  kubectl config --kubeconfig "$kc" set-context spiralbench --cluster spiralbench --user "$user" >/dev/null
  kubectl config --kubeconfig "$kc" use-context spiralbench >/dev/null
}

make_pki() {
  [[ -f "$PKI/ca.crt" ]] && return 0
  mkdir -p "$PKI"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -days 3650 \
    -subj "/CN=spiralbench-local-ca" 2>/dev/null
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  cert apiserver "/CN=kube-apiserver" serverAuth \
    "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:$KUBERNETES_SERVICE_IP,IP:$NODE_IP"
  cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  cert admin "/O=system:masters/CN=spiralbench-admin" clientAuth
  cert controller-manager "/CN=system:kube-controller-manager" clientAuth
  cert scheduler "/CN=system:kube-scheduler" clientAuth
  cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
  for u in controller-manager scheduler kubelet; do kubeconfig "$CLUSTER_DIR/$u.kubeconfig" "$u"; done
  kubeconfig "$KUBECONFIG_ADMIN" admin
  chmod 600 "$PKI"/*.key "$CLUSTER_DIR"/*.kubeconfig "$KUBECONFIG_ADMIN"
}
