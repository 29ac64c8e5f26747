// Command coredns is a CoreDNS with only the plugins the one-node test cluster
// (hack/cluster) needs: cluster names from the kubernetes plugin, a cache, health and
// readiness endpoints, and bind to listen on the node's address only. No forward plugin: names outside the cluster do not resolve from
// pods, so nothing in a pod can reach past this machine by name.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	// The order requests pass through the plugins, as in CoreDNS' plugin.cfg.
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "cache", "kubernetes"}
	coremain.Run()
}
