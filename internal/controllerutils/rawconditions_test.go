package controllerutils

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMergeRawCondition(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	stamp := "2026-11-27T12:00:00Z"
	earlier := "2026-01-01T00:00:00Z"
	// What a gardenlet writes: Gardener's form, with lastUpdateTime and codes.
	gardenlet := map[string]any{"type": "GardenletReady", "status": "True", "reason": "GardenletReady", "message": "ready",
		"lastTransitionTime": earlier, "lastUpdateTime": earlier, "codes": []any{"ERR_INFRA_QUOTA_EXCEEDED"}}
	draining := True("Draining", "2 shoots left")

	tests := []struct {
		name        string
		conditions  []any
		outcome     *Outcome
		generation  int64
		want        []any
		wantChanged bool
	}{
		{
			name:        "a new condition in Gardener's form keeps the gardenlet's verbatim",
			conditions:  []any{gardenlet},
			outcome:     &draining,
			want:        []any{gardenlet, map[string]any{"type": "Drained", "status": "True", "reason": "Draining", "message": "2 shoots left", "lastTransitionTime": stamp, "lastUpdateTime": stamp}},
			wantChanged: true,
		},
		{
			name: "a changed message moves lastUpdateTime, not lastTransitionTime",
			conditions: []any{gardenlet, map[string]any{"type": "Drained", "status": "True", "reason": "Draining", "message": "3 shoots left",
				"lastTransitionTime": earlier, "lastUpdateTime": earlier}},
			outcome: &draining,
			want: []any{gardenlet, map[string]any{"type": "Drained", "status": "True", "reason": "Draining", "message": "2 shoots left",
				"lastTransitionTime": earlier, "lastUpdateTime": stamp}},
			wantChanged: true,
		},
		{
			name: "the same outcome changes nothing",
			conditions: []any{gardenlet, map[string]any{"type": "Drained", "status": "True", "reason": "Draining", "message": "2 shoots left",
				"lastTransitionTime": earlier, "lastUpdateTime": earlier}},
			outcome: &draining,
			want: []any{gardenlet, map[string]any{"type": "Drained", "status": "True", "reason": "Draining", "message": "2 shoots left",
				"lastTransitionTime": earlier, "lastUpdateTime": earlier}},
		},
		{
			name:        "removal keeps the others",
			conditions:  []any{map[string]any{"type": "Drained", "status": "True"}, gardenlet},
			want:        []any{gardenlet},
			wantChanged: true,
		},
		{
			name:       "removing what is not there changes nothing",
			conditions: []any{gardenlet},
			want:       []any{gardenlet},
		},
		{
			name:        "a list in metav1.Condition's form gets observedGeneration",
			conditions:  []any{map[string]any{"type": "Ready", "status": "True", "observedGeneration": int64(2), "lastTransitionTime": earlier}},
			outcome:     &draining,
			generation:  3,
			want:        []any{map[string]any{"type": "Ready", "status": "True", "observedGeneration": int64(2), "lastTransitionTime": earlier}, map[string]any{"type": "Drained", "status": "True", "reason": "Draining", "message": "2 shoots left", "lastTransitionTime": stamp, "observedGeneration": int64(3)}},
			wantChanged: true,
		},
		{
			name:        "a status change moves lastTransitionTime",
			conditions:  []any{map[string]any{"type": "Drained", "status": "False", "reason": "Draining", "message": "2 shoots left", "lastTransitionTime": earlier, "observedGeneration": int64(3)}},
			outcome:     &draining,
			generation:  3,
			want:        []any{map[string]any{"type": "Drained", "status": "True", "reason": "Draining", "message": "2 shoots left", "lastTransitionTime": stamp, "observedGeneration": int64(3)}},
			wantChanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := MergeRawCondition(tt.conditions, "Drained", tt.outcome, tt.generation, now)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantChanged, changed)
		})
	}
}

func TestMergeGardenerCondition(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	stamp := "2026-11-27T12:00:00Z"
	earlier := "2026-01-01T00:00:00Z"
	ready := True("GardenletReady", "Gardenlet is posting ready status.")
	other := map[string]any{"type": "ExtensionsReady", "status": "True", "reason": "AllExtensionsReady", "message": "ok",
		"lastTransitionTime": earlier, "lastUpdateTime": earlier, "codes": []any{"ERR_CONFIGURATION_PROBLEM"}}

	tests := []struct {
		name        string
		conditions  []any
		want        []any
		wantChanged bool
	}{
		{
			name:        "the first entry of an empty list is in Gardener's form",
			want:        []any{map[string]any{"type": "GardenletReady", "status": "True", "reason": "GardenletReady", "message": "Gardenlet is posting ready status.", "lastTransitionTime": stamp, "lastUpdateTime": stamp}},
			wantChanged: true,
		},
		{
			name: "a changed entry loses its codes; another writer's keeps them",
			conditions: []any{other, map[string]any{"type": "GardenletReady", "status": "Unknown", "reason": "StatusUnknown", "message": "Gardenlet stopped posting status updates.",
				"lastTransitionTime": earlier, "lastUpdateTime": earlier, "codes": []any{"ERR_INFRA_UNAUTHORIZED"}}},
			want: []any{other, map[string]any{"type": "GardenletReady", "status": "True", "reason": "GardenletReady", "message": "Gardenlet is posting ready status.",
				"lastTransitionTime": stamp, "lastUpdateTime": stamp}},
			wantChanged: true,
		},
		{
			name: "the same outcome changes nothing",
			conditions: []any{map[string]any{"type": "GardenletReady", "status": "True", "reason": "GardenletReady", "message": "Gardenlet is posting ready status.",
				"lastTransitionTime": earlier, "lastUpdateTime": earlier}},
			want: []any{map[string]any{"type": "GardenletReady", "status": "True", "reason": "GardenletReady", "message": "Gardenlet is posting ready status.",
				"lastTransitionTime": earlier, "lastUpdateTime": earlier}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := MergeGardenerCondition(tt.conditions, "GardenletReady", ready, now)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantChanged, changed)
		})
	}
}
