{{/* What the seed controller's pod adds to every part's (deployment.yaml): the default capacity of a seed, and where ManagedSeeds live. */}}
{{- define "seedscaler.seed-controller.pod" -}}
{{- toYaml (dict "args" (list (printf "--default-seed-capacity=%v" .Values.seedController.defaultSeedCapacity)
                              (printf "--seed-management-namespaces=%s" (join "," .Values.admission.seedManagementNamespaces)))) -}}
{{- end -}}
