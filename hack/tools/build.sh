#!/usr/bin/env bash
# Builds the real binaries that tests, the demo and the chart checks need, from the
# Go module proxy, into a cache outside the repository. A binary already in the
# cache is never rebuilt, so only the first run on a machine pays for it.
#
#   hack/tools/build.sh <tool>...     build the named tools (default: all)
#   hack/tools/build.sh --dir         print the cache directory
#
# Tools: kube-apiserver etcd prometheus promtool helm controller-gen kubectl, envtest (a
# directory with kube-apiserver and etcd side by side, for KUBEBUILDER_ASSETS), and the
# node components of the one-node cluster (hack/cluster): kubelet kube-controller-manager
# kube-scheduler kube-proxy coredns prometheus-operator prometheus-config-reloader
# kube-router, or all of them with kubectl as `node`; golangci-lint (with the kube-api-linter and logcheck
# plugins, hack/tools/golangci-lint) for `make lint`; Gardener's control plane
# (gardener-apiserver gardener-controller-manager gardener-scheduler, or all three as
# `gardener`) from hack/tools/gardener, for the tests and the demo against a real garden.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${SEEDSCALER_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/seedscaler/tools}

KUBE_VERSION=1.36.3
ETCD_VERSION=3.6.8
PROMETHEUS_VERSION=3.15.0   # module github.com/prometheus/prometheus v0.315.0
HELM_VERSION=3.22.0
CONTROLLER_GEN_VERSION=0.23.0
COREDNS_VERSION=1.15.0      # hack/tools/coredns: a CoreDNS with the kubernetes plugin only
GOLANGCI_LINT_VERSION=2.15.0  # hack/tools/golangci-lint: with the kubeapilinter and logcheck plugins
PROMETHEUS_OPERATOR_VERSION=0.85.0
KUBE_ROUTER_VERSION=2.1.0   # hack/tools/kube-router: its firewall enforces the node's NetworkPolicies
GARDENER_VERSION=1.150.0  # hack/tools/gardener: github.com/gardener/gardener and its pkg/apis module
GARDENER_TOOLS=(gardener-apiserver gardener-controller-manager gardener-scheduler)
NODE_TOOLS=(kubectl kubelet kube-controller-manager kube-scheduler kube-proxy coredns prometheus-operator prometheus-config-reloader kube-router)

dir_of() {
  case $1 in
    kube-apiserver|kubectl|kubelet|kube-controller-manager|kube-scheduler|kube-proxy) echo "$cache/kube-$KUBE_VERSION" ;;
    coredns) echo "$cache/coredns-$COREDNS_VERSION" ;;
    prometheus-operator|prometheus-config-reloader) echo "$cache/prometheus-operator-$PROMETHEUS_OPERATOR_VERSION" ;;
    kube-router) echo "$cache/kube-router-$KUBE_ROUTER_VERSION" ;;
    etcd) echo "$cache/etcd-$ETCD_VERSION" ;;
    prometheus|promtool) echo "$cache/prometheus-$PROMETHEUS_VERSION" ;;
    helm) echo "$cache/helm-$HELM_VERSION" ;;
    controller-gen) echo "$cache/controller-gen-$CONTROLLER_GEN_VERSION" ;;
    golangci-lint) echo "$cache/golangci-lint-$GOLANGCI_LINT_VERSION" ;;
    envtest) echo "$cache/envtest-$KUBE_VERSION" ;;
    gardener-apiserver|gardener-controller-manager|gardener-scheduler) echo "$cache/gardener-$GARDENER_VERSION" ;;
    *) echo "unknown tool '$1' (want one of: kube-apiserver etcd prometheus promtool helm controller-gen golangci-lint envtest ${NODE_TOOLS[*]} node ${GARDENER_TOOLS[*]} gardener)" >&2; return 1 ;;
  esac
}

build() {
  local tool=$1 out
  if [ "$tool" = node ]; then
    local t; for t in "${NODE_TOOLS[@]}"; do build "$t"; done
    return 0
  fi
  if [ "$tool" = gardener ]; then
    local t; for t in "${GARDENER_TOOLS[@]}"; do build "$t"; done
    return 0
  fi
  out="$(dir_of "$tool")/$tool"
  [ "$tool" = envtest ] && out="$(dir_of envtest)/etcd"
  if [ -x "$out" ]; then return 0; fi
  [ "$tool" = envtest ] || mkdir -p "$(dirname "$out")"
  echo "hack/tools: building $tool into $(dirname "$out") (first run only, several minutes on 2 cores)" >&2
  local tmp="$out.tmp.$$"
  case $tool in
    envtest)
      # The directory KUBEBUILDER_ASSETS points at: kube-apiserver and etcd side by side.
      build kube-apiserver; build etcd
      local dir; dir=$(dir_of envtest)
      rm -rf "$dir"; mkdir -p "$dir.tmp.$$"
      ln -s "$(dir_of kube-apiserver)/kube-apiserver" "$dir.tmp.$$/kube-apiserver"
      ln -s "$(dir_of etcd)/etcd" "$dir.tmp.$$/etcd"
      mv "$dir.tmp.$$" "$dir"
      return 0 ;;
    kube-apiserver|kubectl|kubelet|kube-controller-manager|kube-scheduler|kube-proxy)
      # Without the stamp the binary reports v0.0.0 and helm's kubeVersion checks fail.
      local minor=${KUBE_VERSION#*.}; minor=${minor%%.*}
      local ver="-X k8s.io/component-base/version.gitVersion=v$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
      (cd "$here/kube" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ver" -o "$tmp" "k8s.io/kubernetes/cmd/$tool") ;;
    golangci-lint)
      # The version in hack/tools/golangci-lint/go.mod must be the one the cache is named by.
      (cd "$here/golangci-lint" && [ "$(go list -m -f '{{.Version}}' github.com/golangci/golangci-lint/v2)" = "v$GOLANGCI_LINT_VERSION" ] ||
        { echo "hack/tools/golangci-lint/go.mod does not require golangci-lint v$GOLANGCI_LINT_VERSION" >&2; exit 1; })
      (cd "$here/golangci-lint" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp" .) ;;
    coredns)
      (cd "$here/coredns" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp" .) ;;
    kube-router)
      (cd "$here/kube-router" && [ "$(go list -m -f '{{.Version}}' github.com/cloudnativelabs/kube-router/v2)" = "v$KUBE_ROUTER_VERSION" ] ||
        { echo "hack/tools/kube-router/go.mod does not require kube-router v$KUBE_ROUTER_VERSION" >&2; exit 1; })
      (cd "$here/kube-router" && CGO_ENABLED=0 go build -trimpath \
        -ldflags "-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=v$KUBE_ROUTER_VERSION" \
        -o "$tmp" github.com/cloudnativelabs/kube-router/v2/cmd/kube-router) ;;
    prometheus-operator|prometheus-config-reloader)
      local cmd=$tool; [ "$tool" = prometheus-operator ] && cmd=operator
      local pov="-X github.com/prometheus/common/version.Version=$PROMETHEUS_OPERATOR_VERSION"
      (cd "$here/prometheus-operator" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $pov" -o "$tmp" \
        "github.com/prometheus-operator/prometheus-operator/cmd/$cmd") ;;
    gardener-apiserver|gardener-controller-manager|gardener-scheduler)
      # The version in hack/tools/gardener/go.mod must be the one the cache is named by.
      (cd "$here/gardener" && [ "$(go list -m -f '{{.Version}}' github.com/gardener/gardener)" = "v$GARDENER_VERSION" ] ||
        { echo "hack/tools/gardener/go.mod does not require gardener v$GARDENER_VERSION" >&2; exit 1; })
      # Gardener stamps its version into component-base as its own release build does.
      local gminor=${GARDENER_VERSION#*.}; gminor=${gminor%%.*}
      local gv="-X k8s.io/component-base/version.gitVersion=v$GARDENER_VERSION -X k8s.io/component-base/version.gitMajor=${GARDENER_VERSION%%.*} -X k8s.io/component-base/version.gitMinor=$gminor"
      (cd "$here/gardener" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $gv" -o "$tmp" "github.com/gardener/gardener/cmd/$tool") ;;
    etcd)
      (cd "$here/kube" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp" go.etcd.io/etcd/server/v3) ;;
    prometheus|promtool)
      local pv="-X github.com/prometheus/common/version.Version=$PROMETHEUS_VERSION -X github.com/prometheus/common/version.Branch=release -X github.com/prometheus/common/version.Revision=module-v0.${PROMETHEUS_VERSION%%.*}${PROMETHEUS_VERSION#*.}"
      (cd "$here/prometheus" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $pv" -o "$tmp" "github.com/prometheus/prometheus/cmd/$tool") ;;
    helm)
      GOBIN="$(dirname "$tmp")/gobin.$$" go install "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION"
      mv "$(dirname "$tmp")/gobin.$$/helm" "$tmp"; rmdir "$(dirname "$tmp")/gobin.$$" ;;
    controller-gen)
      GOBIN="$(dirname "$tmp")/gobin.$$" go install "sigs.k8s.io/controller-tools/cmd/controller-gen@v$CONTROLLER_GEN_VERSION"
      mv "$(dirname "$tmp")/gobin.$$/controller-gen" "$tmp"; rmdir "$(dirname "$tmp")/gobin.$$" ;;
  esac
  mv "$tmp" "$out"
}

if [ "${1:-}" = "--dir" ]; then
  shift
  if [ $# -eq 0 ]; then echo "$cache"; else dir_of "$1"; fi
  exit 0
fi
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(controller-gen helm kube-apiserver etcd prometheus promtool)
for t in "${tools[@]}"; do build "$t"; done
