{{/* Name of the chart, overridable. */}}
{{- define "mcp-beaver.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: release-chart unless the release name already contains the chart name. */}}
{{- define "mcp-beaver.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mcp-beaver.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mcp-beaver.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mcp-beaver.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "mcp-beaver.labels" -}}
helm.sh/chart: {{ include "mcp-beaver.chart" . }}
{{ include "mcp-beaver.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: gateway
{{- end }}

{{- define "mcp-beaver.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mcp-beaver.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The ConfigMap that holds the spec: the chart's own or an existing one. */}}
{{- define "mcp-beaver.specConfigMap" -}}
{{- default (printf "%s-spec" (include "mcp-beaver.fullname" .)) .Values.existingSpecConfigMap.name }}
{{- end }}

{{- define "mcp-beaver.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/* Host names of the Service, as clients inside the cluster reach it. */}}
{{- define "mcp-beaver.serviceHosts" -}}
{{- $svc := include "mcp-beaver.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) | toJson }}
{{- end }}

{{/* Seconds between SIGTERM's preStop and SIGKILL; larger than the drain it covers. */}}
{{- define "mcp-beaver.terminationGracePeriodSeconds" -}}
{{- $drain := add .Values.drain.preStopSleepSeconds .Values.drain.graceSeconds }}
{{- $given := int .Values.drain.terminationGracePeriodSeconds }}
{{- if eq $given 0 }}
{{- add $drain 5 }}
{{- else if le $given (int $drain) }}
{{- fail (printf "drain.terminationGracePeriodSeconds (%d) must exceed drain.preStopSleepSeconds + drain.graceSeconds (%d), or the kubelet kills calls still draining" $given (int $drain)) }}
{{- else }}
{{- $given }}
{{- end }}
{{- end }}

{{/*
--workers: server.workers, or one per CPU of resources.limits.cpu rounded up ("1500m" and
"1.5" give 2), or 1 without a CPU limit.
*/}}
{{- define "mcp-beaver.workers" -}}
{{- $workers := int .Values.server.workers -}}
{{- if gt $workers 0 -}}
{{- $workers -}}
{{- else -}}
{{- $cpu := toString (dig "limits" "cpu" "" (.Values.resources | default dict)) -}}
{{- if eq $cpu "" -}}
1
{{- else if hasSuffix "m" $cpu -}}
{{- max 1 (div (add (int (trimSuffix "m" $cpu)) 999) 1000) -}}
{{- else -}}
{{- max 1 (int (ceil (float64 $cpu))) -}}
{{- end -}}
{{- end -}}
{{- end }}
