{{/* What the exporter's pod adds to every part's (deployment.yaml): the series it leaves out. */}}
{{- define "seedscaler.exporter.pod" -}}
{{- $args := list -}}
{{- if not .Values.exporter.seedAutoscalers -}}
{{- $args = append $args "--seedautoscalers=false" -}}
{{- end -}}
{{- if not .Values.exporter.shootInfo -}}
{{- $args = append $args "--shoot-info=false" -}}
{{- end -}}
{{- toYaml (dict "args" $args) -}}
{{- end -}}
