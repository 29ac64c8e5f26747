{{/* Name prefix of every object: the release name, plus "-seedscaler" unless it already says so. */}}
{{- define "seedscaler.fullname" -}}
{{- if contains "seedscaler" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-seedscaler" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "seedscaler.labels" -}}
app.kubernetes.io/name: seedscaler
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one part: root and component name. */}}
{{- define "seedscaler.selectorLabels" -}}
app.kubernetes.io/name: seedscaler
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

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

{{/* Whether the cluster serves the Prometheus operator's kinds, or a value forces them. */}}
{{- define "seedscaler.monitoringEnabled" -}}
{{- $v := toString .value -}}
{{- if eq $v "true" -}}true
{{- else if and (eq $v "auto") (.root.Capabilities.APIVersions.Has (printf "monitoring.coreos.com/v1/%s" .kind)) -}}true
{{- end -}}
{{- end -}}

{{/*
seedscaler.namespacedRoles lists, as JSON, the Roles of a part's generated RBAC file
(files/rbac/<part>/role.yaml, from markers with namespace=...): each with the rules, a name
suffix and the namespaces it is bound in. A marker's namespace is a real one
(gardener-system-seed-lease) or stands for one the release decides:
  seedscaler-lock-namespace             the release namespace (--lock-namespace), in object-locks mode only
  seedscaler-region-config-namespace    scheduler.config.regionConfigNamespace (default garden)
  seedscaler-seed-management-namespaces every one of admission.seedManagementNamespaces
Arguments (dict): root, name (the part), locks (bool: object-locks mode).
*/}}
{{- define "seedscaler.namespacedRoles" -}}
{{- $root := .root -}}
{{- $out := list -}}
{{- range regexSplit "(?m)^---[ \t]*$" ($root.Files.Get (printf "files/rbac/%s/role.yaml" .name)) -1 }}
{{- $doc := fromYaml . }}
{{- if eq (toString $doc.kind) "Role" }}
{{- $ns := $doc.metadata.namespace }}
{{- $suffix := $ns }}
{{- $targets := list $ns }}
{{- if eq $ns "seedscaler-lock-namespace" }}
{{- $suffix = "locks" }}
{{- $targets = ternary (list $root.Release.Namespace) (list) $.locks }}
{{- else if eq $ns "gardener-system-seed-lease" }}
{{- $suffix = "heartbeats" }}
{{- else if eq $ns "seedscaler-region-config-namespace" }}
{{- $suffix = "region-configs" }}
{{- $targets = list (default "garden" ($root.Values.scheduler.config).regionConfigNamespace) }}
{{- else if eq $ns "seedscaler-seed-management-namespaces" }}
{{- $suffix = "seed-management" }}
{{- $targets = $root.Values.admission.seedManagementNamespaces }}
{{- end }}
{{- $out = append $out (dict "suffix" $suffix "namespaces" $targets "rules" $doc.rules) }}
{{- end }}
{{- end }}
{{- toJson $out -}}
{{- end -}}

{{/*
seedscaler.component renders one part: ServiceAccount, ClusterRole (rules generated from the
part's +kubebuilder:rbac markers into files/rbac/<part>/role.yaml), ClusterRoleBinding, the
Roles of that file where the work is (seedscaler.namespacedRoles), a Role for leader
election, the Deployment and the metrics Service (HTTPS with metrics.secure).
Arguments (dict): root, name (component, e.g. scheduler), subcommand, values, args (list),
leaderElect (bool), replicasMode (optional: parts that can run active-active), hpa (the
part's hpa values, optional), volumes/volumeMounts (lists, optional), ports (list of
{name,port}, optional).
In object-locks mode leader election is off, every replica works and pods spread over
nodes and zones. A part whose HPA is enabled gets it here, and its Deployment names no
replicas: the HPA owns them, and a Deployment that named them would be set back to them
by every helm upgrade.
*/}}
{{- define "seedscaler.component" -}}
{{- $root := .root -}}
{{- $v := .values -}}
{{- $locks := eq (toString .replicasMode) "object-locks" -}}
{{- $leaderElect := and .leaderElect (not $locks) -}}
{{- $hpa := and .hpa .hpa.enabled -}}
{{- $fullname := printf "%s-%s" (include "seedscaler.fullname" $root) .name -}}
{{- $rbac := dict -}}
{{- range regexSplit "(?m)^---[ \t]*$" ($root.Files.Get (printf "files/rbac/%s/role.yaml" .name)) -1 }}
{{- $doc := fromYaml . }}
{{- if eq (toString $doc.kind) "ClusterRole" }}{{ $rbac = $doc }}{{ end }}
{{- end }}
{{- $secure := $root.Values.metrics.secure -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $fullname }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
rules:
  {{- if $rbac.rules }}
  {{- toYaml $rbac.rules | nindent 2 }}
  {{- end }}
  - apiGroups: [""]
    resources: [events]
    verbs: [create, patch]
  - apiGroups: [events.k8s.io]
    resources: [events]
    verbs: [create, patch]
  {{- if $secure }}
  # Secure metrics: who scrapes is authenticated and authorized by the kube-apiserver.
  - apiGroups: [authentication.k8s.io]
    resources: [tokenreviews]
    verbs: [create]
  - apiGroups: [authorization.k8s.io]
    resources: [subjectaccessreviews]
    verbs: [create]
  {{- end }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $fullname }}
subjects:
  - kind: ServiceAccount
    name: {{ $fullname }}
    namespace: {{ $root.Release.Namespace }}
{{- range (include "seedscaler.namespacedRoles" (dict "root" $root "name" .name "locks" $locks) | fromJsonArray) }}
{{- $role := . }}
{{- range .namespaces }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $fullname }}-{{ $role.suffix }}
  namespace: {{ . }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ $.name }}
rules:
  {{- toYaml $role.rules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $fullname }}-{{ $role.suffix }}
  namespace: {{ . }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ $.name }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $fullname }}-{{ $role.suffix }}
subjects:
  - kind: ServiceAccount
    name: {{ $fullname }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- end }}
{{- if $leaderElect }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $fullname }}-leader-election
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
rules:
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $fullname }}-leader-election
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $fullname }}-leader-election
subjects:
  - kind: ServiceAccount
    name: {{ $fullname }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $fullname }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  {{- if not $hpa }}
  replicas: {{ $v.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "seedscaler.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "seedscaler.selectorLabels" . | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/values: {{ toYaml $v | sha256sum | trunc 16 }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ $fullname }}
      automountServiceAccountToken: true
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .name }}
          image: {{ include "seedscaler.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args:
            - {{ .subcommand }}
            - --metrics-bind-address=:8080
            - --metrics-secure={{ $secure }}
            - --health-probe-bind-address=:8081
            {{- if $leaderElect }}
            - --leader-elect=true
            - --leader-election-namespace={{ $root.Release.Namespace }}
            {{- end }}
            {{- if $locks }}
            - --replicas-mode=object-locks
            - --lock-namespace={{ $root.Release.Namespace }}
            {{- end }}
            {{- include "seedscaler.logArgs" $root | nindent 12 }}
            {{- range .args }}
            - {{ . }}
            {{- end }}
            {{- range $v.extraArgs }}
            - {{ . }}
            {{- end }}
          env:
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            {{- if (($v.resources).limits).memory }}
            # The Go runtime collects garbage harder as the heap nears the memory limit,
            # instead of growing past it into the OOM killer.
            - name: GOMEMLIMIT
              valueFrom:
                resourceFieldRef:
                  containerName: {{ .name }}
                  resource: limits.memory
            {{- end }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            - name: metrics
              containerPort: 8080
            - name: health
              containerPort: 8081
            {{- range .ports }}
            - name: {{ .name }}
              containerPort: {{ .port }}
            {{- end }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: health
            initialDelaySeconds: 10
            periodSeconds: 10
          readinessProbe:
            httpGet:
              path: /readyz
              port: health
            periodSeconds: 5
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          {{- with .volumeMounts }}
          volumeMounts:
            {{- toYaml . | nindent 12 }}
          {{- end }}
      {{- with .volumes }}
      volumes:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $locks }}
      # Every replica works: spread them over nodes and zones.
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "seedscaler.selectorLabels" . | nindent 14 }}
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "seedscaler.selectorLabels" . | nindent 14 }}
      {{- end }}
{{- if $hpa }}
---
{{ include "seedscaler.hpa" (dict "root" $root "name" .name "hpa" .hpa) }}
{{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $fullname }}-metrics
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  selector:
    {{- include "seedscaler.selectorLabels" . | nindent 4 }}
  ports:
    - name: metrics
      port: 8080
      targetPort: metrics
{{- if eq (include "seedscaler.monitoringEnabled" (dict "root" $root "value" $root.Values.monitoring.serviceMonitors "kind" "ServiceMonitor")) "true" }}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ $fullname }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "seedscaler.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
    {{- with $root.Values.monitoring.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "seedscaler.selectorLabels" . | nindent 6 }}
  endpoints:
    - port: metrics
      interval: 15s
      {{- if $secure }}
      # The part authenticates the scraper's token and asks the kube-apiserver whether it
      # may get /metrics. Its certificate is self-signed, made when the pod starts: there is
      # no CA to check it against, and the token is what protects the endpoint.
      scheme: https
      bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
      tlsConfig:
        insecureSkipVerify: true
      {{- end }}
      # The part's own labels win over the operator's target labels: the exporter's and the
      # scheduler's `namespace` is a shoot's or a ManagedSeedSet's, not the release's.
      honorLabels: true
      relabelings:
        # The job is the part, whatever the release is called: alerts match it exactly.
        - targetLabel: job
          replacement: seedscaler-{{ .name }}
{{- end }}
{{- end -}}

{{/*
seedscaler.hpa is the HorizontalPodAutoscaler of a part's Deployment: CPU, and memory only
when the part's hpa sets a target. Arguments: root, name (the part), hpa (its values).
*/}}
{{- define "seedscaler.hpa" -}}
{{- $fullname := printf "%s-%s" (include "seedscaler.fullname" .root) .name -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $fullname }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "seedscaler.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $fullname }}
  minReplicas: {{ .hpa.minReplicas }}
  maxReplicas: {{ .hpa.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .hpa.targetCPUUtilizationPercentage }}
    {{- with .hpa.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
{{- end }}
