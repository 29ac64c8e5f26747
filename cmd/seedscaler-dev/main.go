// Command seedscaler-dev holds the development commands: the demo (`local`), the landscape
// simulator (`simulate`) and the autoscaling benchmark (`bench-autoscaling`). They link the
// test harness (envtest, a one-node cluster) and plotting, which the shipped binary, the
// parts the chart deploys, must not carry: envtest writes to /tmp when it initializes, which
// the chart's read-only root file system refuses.
package main

import "github.com/seedscaler/seedscaler/internal/app"

func main() {
	app.Execute(app.RootCommand("seedscaler-dev", "seedscaler's development commands: the demo, the simulator, the benchmarks",
		localCommand(), simulateCommand(), benchAutoscalingCommand()))
}
