{{/* <release>-manager, the name of every namespaced object and of the ClusterRole. */}}
{{- define "spiralbench.manager" -}}
{{- printf "%s-manager" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "spiralbench.serviceAccountName" -}}
{{- default (include "spiralbench.manager" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "spiralbench.selectorLabels" -}}
app.kubernetes.io/name: spiralbench
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end -}}

{{- define "spiralbench.labels" -}}
{{ include "spiralbench.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
