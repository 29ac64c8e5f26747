{{/* What the autoscaler's pod adds to every part's (deployment.yaml): --dry-run with autoscaler.dryRun. */}}
{{- define "seedscaler.autoscaler.pod" -}}
{{- $args := list -}}
{{- if .Values.autoscaler.dryRun -}}
{{- $args = append $args "--dry-run" -}}
{{- end -}}
{{- toYaml (dict "args" $args) -}}
{{- end -}}
