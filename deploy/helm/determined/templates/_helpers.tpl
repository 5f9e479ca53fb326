{{/* Names shared by the templates; every object carries the release's labels. */}}
{{- define "determined.labels" -}}
app.kubernetes.io/name: determined
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
release: {{ .Release.Name }}
{{- end -}}

{{- define "determined.masterService" -}}determined-master-service-{{ .Release.Name }}{{- end -}}
{{- define "determined.dbService" -}}determined-db-service-{{ .Release.Name }}{{- end -}}
{{- define "determined.serviceAccount" -}}determined-master-{{ .Release.Name }}{{- end -}}
{{- define "determined.namespace" -}}{{ .Values.defaultNamespace | default .Release.Namespace }}{{- end -}}

{{/* <registry>/<name>:<tag>, the tag defaulting to the chart's appVersion. */}}
{{- define "determined.image" -}}
{{- $reg := .root.Values.imageRegistry -}}
{{- $tag := .tag | default .root.Chart.AppVersion -}}
{{- if $reg }}{{ $reg }}/{{ end }}{{ .name }}:{{ $tag }}
{{- end -}}

{{/* The database host the master connects to: the external server, or the
     bundled database's Service by its qualified cluster name. */}}
{{- define "determined.dbHost" -}}
{{- if .Values.db.hostAddress -}}{{ .Values.db.hostAddress }}
{{- else -}}{{ include "determined.dbService" . }}.{{ .Release.Namespace }}.svc.cluster.local
{{- end -}}
{{- end -}}

{{- define "determined.password" -}}
{{- .Values.initialUserPassword | default .Values.defaultPassword | default "" -}}
{{- end -}}
