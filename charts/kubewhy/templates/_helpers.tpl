{{/*
The chart name, or nameOverride.
*/}}
{{- define "kubewhy.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object name: "<release>-<chart>", or the release name alone when it
already contains the chart name. Truncated to 63 characters, a DNS label's limit.
*/}}
{{- define "kubewhy.fullname" -}}
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

{{/*
"<chart>-<version>" for the helm.sh/chart label.
*/}}
{{- define "kubewhy.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every object.
*/}}
{{- define "kubewhy.labels" -}}
helm.sh/chart: {{ include "kubewhy.chart" . }}
{{ include "kubewhy.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kubewhy
{{- end }}

{{/*
Labels that select the pod; they never change across upgrades.
*/}}
{{- define "kubewhy.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kubewhy.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The service account the pod runs as.
*/}}
{{- define "kubewhy.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kubewhy.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image reference: repository@digest when a digest is set, else repository:tag.
*/}}
{{- define "kubewhy.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
The Secret that holds the scope tokens.
*/}}
{{- define "kubewhy.tokensSecretName" -}}
{{- default (printf "%s-tokens" (include "kubewhy.fullname" .)) .Values.auth.existingSecret }}
{{- end }}

{{/*
The Secret and key that hold the Anthropic API key; empty name when none is configured.
*/}}
{{- define "kubewhy.anthropicSecretName" -}}
{{- if .Values.anthropic.existingSecret }}
{{- .Values.anthropic.existingSecret }}
{{- else if .Values.anthropic.apiKey }}
{{- printf "%s-anthropic" (include "kubewhy.fullname" .) }}
{{- end }}
{{- end }}

{{- define "kubewhy.anthropicSecretKey" -}}
{{- if .Values.anthropic.existingSecret }}
{{- .Values.anthropic.existingSecretKey }}
{{- else }}
{{- "anthropic-api-key" }}
{{- end }}
{{- end }}

{{/*
The claim backing the data volume.
*/}}
{{- define "kubewhy.dataClaimName" -}}
{{- default (printf "%s-data" (include "kubewhy.fullname" .)) .Values.persistence.existingClaim }}
{{- end }}

{{/*
"true" when runs, the queue and the audit log live in PostgreSQL; empty for SQLite.
*/}}
{{- define "kubewhy.usesPostgresql" -}}
{{- if eq .Values.database.type "postgresql" }}true{{ end }}
{{- end }}

{{/*
"true" when the PodDisruptionBudget is rendered: podDisruptionBudget.enabled, or when it
is null, whether there is more than one replica.
*/}}
{{- define "kubewhy.podDisruptionBudgetEnabled" -}}
{{- $enabled := .Values.podDisruptionBudget.enabled }}
{{- if kindIs "invalid" $enabled }}
{{- $enabled = gt (int .Values.replicaCount) 1 }}
{{- end }}
{{- if $enabled }}true{{ end }}
{{- end }}

{{/*
Checks across values that values.schema.json cannot express, or expresses with a message
too terse to act on; fails the render with a message that names the value to change.
*/}}
{{- define "kubewhy.validateValues" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "kubewhy.usesPostgresql" .)) }}
{{- fail (printf "replicaCount is %v but database.type is %q: several replicas need database.type \"postgresql\" (with database.postgresql.existingSecret), as SQLite keeps runs, the queue and the audit log in one file that one pod alone may write" .Values.replicaCount .Values.database.type) }}
{{- end }}
{{- if and (include "kubewhy.usesPostgresql" .) (not .Values.database.postgresql.existingSecret) }}
{{- fail "database.type is \"postgresql\" but database.postgresql.existingSecret is empty: create a Secret holding the postgres:// URL (kubectl create secret generic kubewhy-db --from-literal=url=...) and name it in database.postgresql.existingSecret" }}
{{- end }}
{{- if and (eq .Values.config.model "anthropic") (not (include "kubewhy.anthropicSecretName" .)) }}
{{- fail "config.model is \"anthropic\" but no API key is configured: set anthropic.existingSecret (or anthropic.apiKey), or use config.model \"auto\" or \"offline\"" }}
{{- end }}
{{- if .Values.config.allowedNamespaces }}
{{- range .Values.act.namespaces }}
{{- if not (has . $.Values.config.allowedNamespaces) }}
{{- fail (printf "act.namespaces contains %q, which is not in config.allowedNamespaces %v: kubewhy could never look at it" . $.Values.config.allowedNamespaces) }}
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.notifications.enabled }}
{{- $names := list }}
{{- range .Values.notifications.destinations }}
{{- $names = append $names .name }}
{{- end }}
{{- range $index, $route := .Values.notifications.routes }}
{{- range $route.to }}
{{- if not (has . $names) }}
{{- fail (printf "notifications.routes[%d].to names %q, which is not among notifications.destinations (%s)" $index . (join ", " $names)) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and (contains "/etc/kubewhy/notify/" (toJson .Values.notifications.destinations)) (not .Values.notifications.existingSecret) }}
{{- fail "notifications.destinations read credentials from /etc/kubewhy/notify, where notifications.existingSecret is mounted: set notifications.existingSecret to the Secret that holds them" }}
{{- end }}
{{- end }}
{{- $managed := list "KUBEWHY_HOST" "KUBEWHY_PORT" "KUBEWHY_DATA_DIR" "KUBEWHY_CLUSTER" "KUBEWHY_AUTH" "KUBEWHY_TOKENS_DIR" "KUBEWHY_TOKEN_INGEST" "KUBEWHY_TOKEN_READ" "KUBEWHY_TOKEN_APPROVE" "KUBEWHY_ACT_NAMESPACES" "KUBEWHY_ALLOWED_NAMESPACES" "KUBEWHY_SECRET_KEYS" "ANTHROPIC_API_KEY" "KUBEWHY_NOTIFICATIONS_FILE" "KUBEWHY_CONSOLE_URL" "KUBEWHY_DATABASE_URL" "KUBEWHY_REPLICA" }}
{{- range .Values.extraEnv }}
{{- if has .name $managed }}
{{- fail (printf "extraEnv sets %s, which the chart sets from its values (auth, act, config, rbac, anthropic, database): change those instead, so that RBAC and the service agree and credentials stay in Secrets" .name) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The notifications file, as the service reads it (src/notify/notify-config.ts).
*/}}
{{- define "kubewhy.notificationsFile" -}}
{{- $file := dict "destinations" .Values.notifications.destinations "routes" .Values.notifications.routes }}
{{- with .Values.notifications.delivery }}
{{- $_ := set $file "delivery" . }}
{{- end }}
{{- toYaml $file }}
{{- end }}

{{/*
The console's address for links in notifications: notifications.consoleUrl, else the
console Ingress's host.
*/}}
{{- define "kubewhy.consoleUrl" -}}
{{- if .Values.notifications.consoleUrl }}
{{- .Values.notifications.consoleUrl }}
{{- else if .Values.console.ingress.enabled }}
{{- printf "%s://%s" (ternary "https" "http" (ne .Values.console.ingress.tlsSecretName "")) .Values.console.ingress.host }}
{{- end }}
{{- end }}
