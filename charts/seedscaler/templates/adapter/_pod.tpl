{{/*
What the adapter's pod adds to every part's (deployment.yaml): its API server's port and
serving certificate (apiservices.yaml), the Prometheus it reads, its rules (rules.yaml) and
the client configuration of Prometheus (prometheus-client.yaml), each a volume.
*/}}
{{- define "seedscaler.adapter.pod" -}}
{{- $args := list "--secure-port=6443" "--tls-cert-file=/var/run/seedscaler/tls/tls.crt" "--tls-private-key-file=/var/run/seedscaler/tls/tls.key" (printf "--prometheus-url=%s" .Values.adapter.prometheusURL) -}}
{{- $volumes := list (dict "name" "tls" "secret" (dict "secretName" (include "seedscaler.adapter.tlsSecretName" .))) (dict "name" "tmp" "emptyDir" dict) -}}
{{- $mounts := list (dict "name" "tls" "mountPath" "/var/run/seedscaler/tls" "readOnly" true) (dict "name" "tmp" "mountPath" "/tmp") -}}
{{- if .Values.adapter.rules -}}
{{- $args = append $args "--config=/etc/seedscaler/rules.yaml" -}}
{{- $volumes = append $volumes (dict "name" "rules" "configMap" (dict "name" (include "seedscaler.name" (dict "root" . "suffix" "adapter-rules")))) -}}
{{- $mounts = append $mounts (dict "name" "rules" "mountPath" "/etc/seedscaler" "readOnly" true) -}}
{{- end -}}
{{- /* The client configuration and the files it names as one Secret volume (never subPath:
     the kubelet updates a whole volume when the Secret changes, and the adapter reads the
     configuration and its files again). */ -}}
{{- $client := .Values.adapter.prometheus.clientConfig -}}
{{- if or $client.inline $client.existingSecret -}}
{{- $args = append $args (printf "--prometheus-client-config=/var/run/seedscaler/prometheus/%s" $client.key) -}}
{{- $volumes = append $volumes (dict "name" "prometheus-client" "secret" (dict "secretName" (include "seedscaler.adapter.clientSecretName" .))) -}}
{{- $mounts = append $mounts (dict "name" "prometheus-client" "mountPath" "/var/run/seedscaler/prometheus" "readOnly" true) -}}
{{- end -}}
{{- toYaml (dict "args" $args "volumes" $volumes "volumeMounts" $mounts "ports" (list (dict "name" "https" "port" 6443))) -}}
{{- end -}}

{{/* The adapter's Service, which the APIServices and its certificate name. */}}
{{- define "seedscaler.adapter.serviceName" -}}
{{- include "seedscaler.name" (dict "root" . "suffix" "adapter") -}}
{{- end -}}

{{/* The Secret of the adapter's serving certificate: the chart's, or adapter.certificate.secretName. */}}
{{- define "seedscaler.adapter.tlsSecretName" -}}
{{- $cert := .Values.adapter.certificate -}}
{{- if eq $cert.source "secret" -}}
{{- $cert.secretName -}}
{{- else -}}
{{- include "seedscaler.name" (dict "root" . "suffix" "adapter-tls") -}}
{{- end -}}
{{- end -}}

{{/* The Secret of the client configuration of Prometheus: the chart's, or adapter.prometheus.clientConfig.existingSecret. */}}
{{- define "seedscaler.adapter.clientSecretName" -}}
{{- default (include "seedscaler.name" (dict "root" . "suffix" "adapter-prometheus")) .Values.adapter.prometheus.clientConfig.existingSecret -}}
{{- end -}}
