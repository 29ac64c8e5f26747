//go:build integration

package chart

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// logging.format and logLevel reach every container that runs seedscaler: each part's
// Deployment and the uninstall hook's Job, with every values file.
func TestLogFormatAndLevelReachEveryContainer(t *testing.T) {
	for name, args := range valuesFiles(t) {
		for _, c := range []struct {
			set       []string
			format, v string
		}{
			{nil, "--logging-format=text", "--v=0"},
			{[]string{"--set", "logging.format=json", "--set", "logLevel=3"}, "--logging-format=json", "--v=3"},
		} {
			var jobs, deployments int
			for _, w := range workloads(t, append(slices.Clone(args), c.set...)...) {
				switch w.name[:3] {
				case "Job":
					jobs++
				case "Dep":
					deployments++
				}
				for _, container := range w.pod.Spec.Containers {
					assert.Contains(t, container.Args, c.format, "%s %v: %s/%s", name, c.set, w.name, container.Name)
					assert.Contains(t, container.Args, c.v, "%s %v: %s/%s", name, c.set, w.name, container.Name)
				}
			}
			assert.Equal(t, 1, jobs, "%s: the uninstall hook's Job was not checked", name)
			assert.NotZero(t, deployments, name)
		}
	}
}

func TestSchemaRejectsAnUnknownLogFormat(t *testing.T) {
	assertSchemaRejects(t, []string{"logging.format=logfmt"}, "/logging/format")
	assertSchemaRejects(t, []string{"logging.formt=json"}, "additional properties 'formt' not allowed")
}
