package schedulerdiff

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/seedscaler/seedscaler/scheduler/region"
)

func shoot(provider, shootRegion, purpose string) *unstructured.Unstructured {
	spec := map[string]any{
		"cloudProfile": map[string]any{"kind": "CloudProfile", "name": provider},
		"region":       shootRegion,
		"provider":     map[string]any{"type": provider},
	}
	if purpose != "" {
		spec["purpose"] = purpose
	}
	return &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
}

func TestEquallyNear(t *testing.T) {
	azure := region.Parse(&corev1.ConfigMap{Data: map[string]string{
		"westeurope":    "northeurope: 20\nsoutheastasia: 160",
		"southeastasia": "westeurope: 160\nnortheurope: 160",
	}})
	seeds := map[string]place{
		"weu-0": {"azure", "westeurope"}, "weu-1": {"azure", "westeurope"},
		"neu-0": {"azure", "northeurope"}, "sea-0": {"azure", "southeastasia"},
		"aws-euw1": {"aws", "eu-west-1"}, "aws-use1": {"aws", "us-east-1"}, "aws-apse1": {"aws", "ap-southeast-1"},
	}
	regionOf := func(strategy string) landscape {
		return landscape{strategy: strategy, seeds: seeds, regionConfigs: map[string]*region.Config{"azure": azure}}
	}
	cases := []struct {
		name     string
		strategy string
		shoot    *unstructured.Unstructured
		a, b     string
		want     bool
	}{
		{"the same region", "SameRegion", shoot("azure", "westeurope", ""), "weu-0", "weu-1", true},
		{"another region with SameRegion", "SameRegion", shoot("azure", "westeurope", ""), "weu-0", "neu-0", false},
		{"testing: any seed of the provider", "SameRegion", shoot("azure", "westeurope", "testing"), "weu-0", "sea-0", true},
		{"testing: not another provider", "SameRegion", shoot("azure", "westeurope", "testing"), "weu-0", "aws-euw1", false},
		{"the region config: as far", "MinimalDistance", shoot("azure", "southeastasia", ""), "weu-0", "neu-0", true},
		{"the region config: farther", "MinimalDistance", shoot("azure", "westeurope", ""), "neu-0", "sea-0", false},
		{"one named by the config, one not", "MinimalDistance", shoot("azure", "westeurope", ""), "neu-0", "aws-euw1", false},
		{"the Levenshtein fallback: as far", "MinimalDistance", shoot("azure", "southeastasia", ""), "aws-euw1", "aws-use1",
			region.Distance("eu-west-1", "aws", "southeastasia", "azure") == region.Distance("us-east-1", "aws", "southeastasia", "azure")},
		{"the Levenshtein fallback: farther", "MinimalDistance", shoot("aws", "eu-west-1", ""), "aws-euw1", "aws-apse1", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, regionOf(tc.strategy).equallyNear(tc.shoot, tc.a, tc.b))
			assert.Equal(t, tc.want, regionOf(tc.strategy).equallyNear(tc.shoot, tc.b, tc.a), "symmetric")
		})
	}
	assert.True(t, region.Distance("eu-west-1", "aws", "southeastasia", "azure") == region.Distance("us-east-1", "aws", "southeastasia", "azure"),
		"eu-west-1 and us-east-1 are as far from southeastasia by the fallback: the case the comparison must count as a tie")
}
