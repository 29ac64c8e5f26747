{{/*
The parts: each is a subcommand of the one image and a Deployment of its own. The templates
of the kinds every part has (serviceaccount.yaml, rbac.yaml, deployment.yaml, hpa.yaml,
service.yaml, servicemonitor.yaml) range over seedscaler.parts; what only one part has is in
templates/<part>/, and so is its RBAC, generated from its +kubebuilder:rbac markers.
*/}}

{{/*
seedscaler.part describes one part as JSON:
  name         the part: its subcommand, its app.kubernetes.io/component, its objects' suffix
  key          its block of values (seedController for seed-controller)
  enabled      <key>.enabled
  locks        replicasMode object-locks: every replica works, each object under a Lease
  leaderElect  one replica works at a time (leaderElect, and never with object locks)
  hpa          an HPA scales the part and owns its Deployment's replicas
Arguments (dict): root, name.
*/}}
{{- define "seedscaler.part" -}}
{{- $keys := dict "scheduler" "scheduler" "seed-controller" "seedController" "set-controller" "setController" "exporter" "exporter" "adapter" "adapter" "autoscaler" "autoscaler" -}}
{{- $key := get $keys .name -}}
{{- if not $key -}}
{{- fail (printf "seedscaler.part: %q is no part of the chart; the parts are %s" .name (keys $keys | sortAlpha | join ", ")) -}}
{{- end -}}
{{- $v := index .root.Values $key -}}
{{- $locks := eq (toString $v.replicasMode) "object-locks" -}}
{{- $leaderElect := false -}}
{{- if and $v.leaderElect (not $locks) -}}
{{- $leaderElect = true -}}
{{- end -}}
{{- toJson (dict "name" .name "key" $key "enabled" (eq (toString $v.enabled) "true") "locks" $locks "leaderElect" $leaderElect "hpa" (eq (toString (dig "hpa" "enabled" false $v)) "true")) -}}
{{- end -}}

{{/* seedscaler.parts lists, as JSON, the enabled parts (seedscaler.part) by name. */}}
{{- define "seedscaler.parts" -}}
{{- $parts := list -}}
{{- range list "adapter" "autoscaler" "exporter" "scheduler" "seed-controller" "set-controller" -}}
{{- $part := include "seedscaler.part" (dict "root" $ "name" .) | fromJson -}}
{{- if $part.enabled -}}
{{- $parts = append $parts $part -}}
{{- end -}}
{{- end -}}
{{- toJson $parts -}}
{{- end -}}

{{/*
seedscaler.everyPartsRules are the rules of every part's ClusterRole besides those of its
markers: events, and with metrics.secure the reviews that authenticate and authorize who
scrapes /metrics.
*/}}
{{- define "seedscaler.everyPartsRules" -}}
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create, patch]
{{- if .Values.metrics.secure }}
# Secure metrics: who scrapes is authenticated and authorized by the kube-apiserver.
- apiGroups: [authentication.k8s.io]
  resources: [tokenreviews]
  verbs: [create]
- apiGroups: [authorization.k8s.io]
  resources: [subjectaccessreviews]
  verbs: [create]
{{- end }}
{{- end -}}

{{/*
seedscaler.roleTargets lists, as JSON [{name, namespace}], the Roles of one Role of a part's
generated RBAC: a +kubebuilder:rbac marker's namespace= is a real namespace
(gardener-system-seed-lease, the seeds' heartbeats) or stands for those the release decides:
  seedscaler-lock-namespace             the release namespace (--lock-namespace), with object locks only
  seedscaler-region-config-namespace    scheduler.config.regionConfigNamespace (default garden)
  seedscaler-seed-management-namespaces every one of admission.seedManagementNamespaces
Each Role is named after the part and what it is for.
Arguments (dict): root, part (seedscaler.part), namespace (the marker's).
*/}}
{{- define "seedscaler.roleTargets" -}}
{{- $root := .root -}}
{{- $suffix := .namespace -}}
{{- $namespaces := list .namespace -}}
{{- if eq .namespace "seedscaler-lock-namespace" -}}
{{- $suffix = "locks" -}}
{{- $namespaces = ternary (list $root.Release.Namespace) (list) .part.locks -}}
{{- else if eq .namespace "gardener-system-seed-lease" -}}
{{- $suffix = "heartbeats" -}}
{{- else if eq .namespace "seedscaler-region-config-namespace" -}}
{{- $suffix = "region-configs" -}}
{{- $namespaces = list (default "garden" ($root.Values.scheduler.config).regionConfigNamespace) -}}
{{- else if eq .namespace "seedscaler-seed-management-namespaces" -}}
{{- $suffix = "seed-management" -}}
{{- $namespaces = $root.Values.admission.seedManagementNamespaces -}}
{{- end -}}
{{- $name := include "seedscaler.name" (dict "root" $root "suffix" (printf "%s-%s" .part.name $suffix)) -}}
{{- $out := list -}}
{{- range $namespaces -}}
{{- $out = append $out (dict "name" $name "namespace" .) -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/*
seedscaler.namespacedRoles lists, as JSON [{name, namespace}], every Role of a part's
generated RBAC: seedscaler.roleTargets of each namespace its markers name
(seedscaler.<part>.markerNamespaces, generated beside them). Arguments (dict): root, part.
*/}}
{{- define "seedscaler.namespacedRoles" -}}
{{- $out := list -}}
{{- range include (printf "seedscaler.%s.markerNamespaces" .part.name) .root | fromJsonArray -}}
{{- $out = concat $out (include "seedscaler.roleTargets" (dict "root" $.root "part" $.part "namespace" .) | fromJsonArray) -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}
