// Command pause is the sandbox ("pause") container of the one-node test cluster: it holds a
// pod's namespaces open until the kubelet stops the pod, and reaps orphaned children the way
// Kubernetes' own pause does. It is built into an image and imported, because the cluster
// pulls nothing from a registry.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
