{{/* What the set controller's pod adds to every part's (deployment.yaml): where ManagedSeedSets live, and its ControllerRevisions with them. */}}
{{- define "seedscaler.set-controller.pod" -}}
{{- toYaml (dict "args" (list (printf "--seed-management-namespaces=%s" (join "," .Values.admission.seedManagementNamespaces)))) -}}
{{- end -}}
