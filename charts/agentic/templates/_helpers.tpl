{{/* Prefix of every object name: nameOverride or the release name. */}}
{{- define "agentic.prefix" -}}
{{- default .Release.Name .Values.nameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* Object name of a component: (dict "root" $ "name" "identity"). */}}
{{- define "agentic.name" -}}
{{- printf "%s-%s" (include "agentic.prefix" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels of a component: (dict "root" $ "name" "identity"). */}}
{{- define "agentic.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/* All labels of a component: (dict "root" $ "name" "identity" "component" "service"). */}}
{{- define "agentic.labels" -}}
{{ include "agentic.selectorLabels" . }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: agentic
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Image reference of one of our images: (dict "root" $ "name" "identity"). */}}
{{- define "agentic.image" -}}
{{- $img := .root.Values.images -}}
{{- $tag := default .root.Chart.AppVersion $img.tag -}}
{{- if $img.registry -}}
{{- printf "%s/agentic-%s:%s" (trimSuffix "/" $img.registry) .name $tag -}}
{{- else -}}
{{- printf "agentic-%s:%s" .name $tag -}}
{{- end -}}
{{- end -}}

{{/*
The route table, parsed from files/routes.yaml (a copy of gateway/routes.yaml
that charts/tests keeps identical). Returned as JSON: use with fromJson.
*/}}
{{- define "agentic.routeTable" -}}
{{- $raw := .Files.Get "files/routes.yaml" -}}
{{- if not $raw -}}
{{- fail "charts/agentic/files/routes.yaml is missing (copy of gateway/routes.yaml)" -}}
{{- end -}}
{{- $t := fromYaml $raw -}}
{{- if hasKey $t "Error" -}}
{{- fail (printf "files/routes.yaml: %s" $t.Error) -}}
{{- end -}}
{{- toJson $t -}}
{{- end -}}

{{/*
Settings of one service: serviceDefaults overlaid key by key with the
service's entry, plus httpPort/grpcPort from the route table.
(dict "root" $ "name" "identity"); returns JSON.
*/}}
{{- define "agentic.service" -}}
{{- $table := include "agentic.routeTable" .root | fromJson -}}
{{- $out := deepCopy .root.Values.serviceDefaults -}}
{{- range $k, $v := index .root.Values.services .name -}}
{{- $_ := set $out $k $v -}}
{{- end -}}
{{- $ports := index $table.services .name -}}
{{- if not $ports -}}
{{- fail (printf "service %q is in values but not in files/routes.yaml" .name) -}}
{{- end -}}
{{- $_ := set $out "httpPort" (int $ports.httpPort) -}}
{{- $_ := set $out "grpcPort" (int $ports.grpcPort) -}}
{{- toJson $out -}}
{{- end -}}

{{/* Whether a service is enabled: (dict "root" $ "name" "wallet") -> "true" or "". */}}
{{- define "agentic.enabled" -}}
{{- $svc := index .root.Values.services .name -}}
{{- if and $svc $svc.enabled -}}true{{- end -}}
{{- end -}}

{{/* Pod security context shared by all our pods. */}}
{{- define "agentic.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
fsGroup: {{ .uid }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Container security context shared by all our containers. */}}
{{- define "agentic.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
{{- end -}}

{{/*
HPA + PDB of a workload:
(dict "root" $ "name" "identity" "component" "service" "autoscaling" {...} "pdb" {...})
*/}}
{{- define "agentic.scaling" -}}
{{- $ctx := . -}}
{{- if .autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "agentic.name" $ctx }}
  labels:
    {{- include "agentic.labels" $ctx | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "agentic.name" $ctx }}
  minReplicas: {{ .autoscaling.minReplicas }}
  maxReplicas: {{ .autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .autoscaling.targetCPUUtilizationPercentage }}
{{- end }}
{{- if .pdb.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "agentic.name" $ctx }}
  labels:
    {{- include "agentic.labels" $ctx | nindent 4 }}
spec:
  {{- if hasKey .pdb "minAvailable" }}
  minAvailable: {{ .pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ .pdb.maxUnavailable | default 1 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "agentic.selectorLabels" $ctx | nindent 6 }}
{{- end }}
{{- end -}}

{{/* Scheduling fields of a pod spec from a values block (plus "ctx" for spreadAcrossZones). */}}
{{- define "agentic.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if or .topologySpreadConstraints .spreadAcrossZones }}
topologySpreadConstraints:
  {{- with .topologySpreadConstraints }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  {{- if .spreadAcrossZones }}
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "agentic.selectorLabels" .ctx | nindent 8 }}
  {{- end }}
{{- end }}
{{- end -}}

{{- /* APP_ENV of every service: "production" (default) or "development".
       Production with the Firebase Auth emulator is refused at render time
       (the services refuse it at start too). */ -}}
{{- define "agentic.appEnv" -}}
{{- $env := .Values.appEnv | default "production" -}}
{{- if not (has $env (list "production" "development")) -}}
{{- fail (printf "appEnv must be production or development, not %q" $env) -}}
{{- end -}}
{{- if and (eq $env "production") .Values.firebase.authEmulatorHost -}}
{{- fail "firebase.authEmulatorHost is refused with appEnv=production: emulator tokens are unsigned" -}}
{{- end -}}
{{- $env -}}
{{- end -}}
