{{/*
What the scheduler's pod adds to every part's (deployment.yaml): its configuration
(config.yaml) as --config, and the binding webhook (webhook.yaml): its port, its serving
certificate, and the user the scheduler's own binds come as, which the webhook passes.
*/}}
{{- define "seedscaler.scheduler.pod" -}}
{{- $args := list -}}
{{- $volumes := list -}}
{{- $mounts := list -}}
{{- $ports := list -}}
{{- if .Values.scheduler.config -}}
{{- $args = append $args "--config=/etc/seedscaler/config.yaml" -}}
{{- $volumes = append $volumes (dict "name" "config" "configMap" (dict "name" (include "seedscaler.name" (dict "root" . "suffix" "scheduler-config")))) -}}
{{- $mounts = append $mounts (dict "name" "config" "mountPath" "/etc/seedscaler" "readOnly" true) -}}
{{- end -}}
{{- if .Values.scheduler.webhook.enabled -}}
{{- $args = concat $args (list "--webhook-port=9443" "--webhook-cert-dir=/var/run/seedscaler/webhook-tls"
      (printf "--webhook-scheduler-username=%s" (include "seedscaler.scheduler.username" .))) -}}
{{- $volumes = append $volumes (dict "name" "webhook-tls" "secret" (dict "secretName" (include "seedscaler.name" (dict "root" . "suffix" "scheduler-webhook-tls")))) -}}
{{- $mounts = append $mounts (dict "name" "webhook-tls" "mountPath" "/var/run/seedscaler/webhook-tls" "readOnly" true) -}}
{{- $ports = append $ports (dict "name" "webhook" "port" 9443) -}}
{{- end -}}
{{- toYaml (dict "args" $args "volumes" $volumes "volumeMounts" $mounts "ports" $ports) -}}
{{- end -}}

{{/* The user the scheduler's requests come as: its ServiceAccount's. */}}
{{- define "seedscaler.scheduler.username" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "seedscaler.name" (dict "root" . "suffix" "scheduler")) -}}
{{- end -}}
