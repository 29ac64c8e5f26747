{{/*
seedscaler.name is the name of an object of the release: the release name (plus "-seedscaler"
unless it says so already), then "-" and the suffix, if any. A name has at most 63 characters,
a DNS label, as Services and label values need: a longer one keeps its suffix whole and
shortens the release's part, followed by a hash of it, so that two long release names that
begin alike still name their cluster-wide objects apart.
Arguments (dict): root, suffix (optional).
*/}}
{{- define "seedscaler.name" -}}
{{- $base := .root.Release.Name -}}
{{- if not (contains "seedscaler" $base) -}}
{{- $base = printf "%s-seedscaler" $base -}}
{{- end -}}
{{- $suffix := "" -}}
{{- if .suffix -}}
{{- $suffix = printf "-%s" .suffix -}}
{{- end -}}
{{- if le (add (len $base) (len $suffix)) 63 -}}
{{- printf "%s%s" $base $suffix -}}
{{- else -}}
{{- /* 63 = shortened base + "-" + 5 characters of hash + suffix */ -}}
{{- printf "%s-%s%s" ($base | trunc (int (sub 57 (len $suffix))) | trimSuffix "-") ($base | sha256sum | trunc 5) $suffix -}}
{{- end -}}
{{- end -}}

{{/* The name prefix of every object of the release, and the name of those of no part. */}}
{{- define "seedscaler.fullname" -}}
{{- include "seedscaler.name" (dict "root" .) -}}
{{- end -}}

{{/* Labels every object of the release carries. */}}
{{- define "seedscaler.labels" -}}
app.kubernetes.io/name: seedscaler
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* Labels of an object of one part: the release's and the part's component. Arguments (dict): root, name. */}}
{{- define "seedscaler.partLabels" -}}
{{ include "seedscaler.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* Selector labels of one part's pods. Arguments (dict): root, name. */}}
{{- define "seedscaler.selectorLabels" -}}
app.kubernetes.io/name: seedscaler
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* The image every container runs: the chart's appVersion unless image.tag is set. */}}
{{- define "seedscaler.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The log flags of every container that runs seedscaler: verbosity and format. */}}
{{- define "seedscaler.logArgs" -}}
- --v={{ .Values.logLevel }}
- --logging-format={{ .Values.logging.format }}
{{- end -}}

{{/*
The rules of files/alerts/seedscaler.rules.yaml with the service level of shoots waiting for
a seed that monitoring.shootSchedulingSLO sets: the objective replaces the recorded
objective's vector(0.99), the threshold the bucket le="60" every SLI reads (matched as "60"
and "60.0"). The rules file writes both exactly so; should it stop, rendering fails rather
than ship an objective nobody set.
*/}}
{{- define "seedscaler.rules" -}}
{{- $rules := .Files.Get "files/alerts/seedscaler.rules.yaml" -}}
{{- $slo := .Values.monitoring.shootSchedulingSLO -}}
{{- $objective := `vector(0.99)` -}}
{{- $threshold := `le=~"60(\\.0)?"` -}}
{{- if not (and (contains $objective $rules) (contains $threshold $rules)) -}}
{{- fail (printf "files/alerts/seedscaler.rules.yaml must hold %s and %s, which monitoring.shootSchedulingSLO replaces" $objective $threshold) -}}
{{- end -}}
{{- $rules | replace $objective (printf "vector(%v)" $slo.objective) | replace $threshold (printf `le=~"%v(\\.0)?"` $slo.thresholdSeconds) -}}
{{- end -}}

{{/* "true" when the cluster serves the Prometheus operator's kind, or the value forces it. Arguments (dict): root, value, kind. */}}
{{- define "seedscaler.monitoringEnabled" -}}
{{- $v := toString .value -}}
{{- if eq $v "true" -}}true
{{- else if and (eq $v "auto") (.root.Capabilities.APIVersions.Has (printf "monitoring.coreos.com/v1/%s" .kind)) -}}true
{{- end -}}
{{- end -}}

{{/* A Prometheus duration (1h30m, 15s, 500ms) in milliseconds. */}}
{{- define "seedscaler.durationMilliseconds" -}}
{{- $unit := dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 "d" 86400000 "w" 604800000 "y" 31536000000 -}}
{{- $total := 0 -}}
{{- range regexFindAll "[0-9]+(ms|[ywdhms])" . -1 -}}
{{- $n := regexFind "^[0-9]+" . -}}
{{- $total = add $total (mul (atoi $n) (get $unit (trimPrefix $n .))) -}}
{{- end -}}
{{- $total -}}
{{- end -}}
