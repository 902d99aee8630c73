{{/* Names and labels. */}}
{{- define "eksbot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "eksbot.fullname" -}}
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

{{- define "eksbot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "eksbot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "eksbot.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "eksbot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: eksbot
{{- end }}

{{- define "eksbot.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "eksbot.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "eksbot.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
The database engine: "postgresql" or "sqlite". From database.url when set (its scheme), else from
database.engine, else SQLite on the pod's /data volume.
*/}}
{{- define "eksbot.databaseEngine" -}}
{{- $db := .Values.database }}
{{- if $db.url }}
{{- $engine := ternary "postgresql" "sqlite" (hasPrefix "postgresql" $db.url) }}
{{- if and $db.engine (ne $db.engine $engine) }}
{{- fail (printf "database.engine is %q but database.url is a %s URL" $db.engine $engine) }}
{{- end }}
{{- $engine }}
{{- else if eq $db.engine "postgresql" }}
{{- if not (or $db.existingSecret .Values.secrets.existingSecret) }}
{{- fail "database.engine is postgresql but no URL is given: set database.existingSecret (a Secret with the URL under database.existingSecretKey), secrets.existingSecret (with a DATABASE_URL key) or database.url" }}
{{- end }}
{{- "postgresql" }}
{{- else }}
{{- "sqlite" }}
{{- end }}
{{- end }}

{{/* Does the chart create the application Secret (trials: values in plain text)? "true" or "". */}}
{{- define "eksbot.createSecret" -}}
{{- $s := .Values.secrets }}
{{- if and (not $s.existingSecret) (or $s.slackBotToken $s.slackSigningSecret $s.slackAppToken $s.apiTokens .Values.database.url) }}
{{- "true" }}
{{- end }}
{{- end }}

{{/* The Secret read whole as environment variables, if any. */}}
{{- define "eksbot.secretName" -}}
{{- if .Values.secrets.existingSecret }}
{{- .Values.secrets.existingSecret }}
{{- else if include "eksbot.createSecret" . }}
{{- include "eksbot.fullname" . }}
{{- end }}
{{- end }}

{{/*
DATABASE_URL for the migration Job, which runs before the release's own objects exist: from
database.existingSecret, else secrets.existingSecret, else a hook Secret the chart makes from database.url.
*/}}
{{- define "eksbot.databaseUrlEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
{{- if .Values.database.existingSecret }}
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.existingSecretKey }}
{{- else if .Values.secrets.existingSecret }}
      name: {{ .Values.secrets.existingSecret }}
      key: DATABASE_URL
{{- else }}
      name: {{ include "eksbot.fullname" . }}-migrate
      key: DATABASE_URL
{{- end }}
{{- end }}

{{/* Pod and container security: non-root, read-only root filesystem, no privileges. */}}
{{- define "eksbot.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsGroup }}
fsGroup: {{ .Values.securityContext.fsGroup }}
fsGroupChangePolicy: OnRootMismatch
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "eksbot.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsGroup }}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Checks that stop a release that cannot work. */}}
{{- define "eksbot.validate" -}}
{{- $engine := include "eksbot.databaseEngine" . }}
{{- $replicas := int .Values.replicaCount }}
{{- if .Values.autoscaling.enabled }}
{{- $replicas = max $replicas (int .Values.autoscaling.maxReplicas) }}
{{- if gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas) }}
{{- fail "autoscaling.minReplicas is greater than autoscaling.maxReplicas" }}
{{- end }}
{{- end }}
{{- if and (gt $replicas 1) (ne $engine "postgresql") }}
{{- fail (printf "more than one replica (%d) needs PostgreSQL: with SQLite each pod would keep its own database file. Set database.url to a postgresql+psycopg:// URL, or database.existingSecret with database.engine=postgresql; or keep replicaCount 1 and autoscaling off" $replicas) }}
{{- end }}
{{- if and .Values.ingress.enabled (not .Values.ingress.certificateArn) }}
{{- fail "ingress.certificateArn is required when ingress.enabled: the load balancer listens on HTTPS 443 with that ACM certificate" }}
{{- end }}
{{- if ge (int .Values.preStopSleepSeconds) (int .Values.terminationGracePeriodSeconds) }}
{{- fail "preStopSleepSeconds must be below terminationGracePeriodSeconds: the server needs time to finish its requests after the sleep" }}
{{- end }}
{{- if and .Values.ingress.enabled (ge (int .Values.ingress.deregistrationDelaySeconds) (int .Values.terminationGracePeriodSeconds)) }}
{{- fail (printf "ingress.deregistrationDelaySeconds (%d) must be below terminationGracePeriodSeconds (%d): the load balancer would still drain requests to a pod that has been killed" (int .Values.ingress.deregistrationDelaySeconds) (int .Values.terminationGracePeriodSeconds)) }}
{{- end }}
{{- if and .Values.database.existingSecret .Values.database.url }}
{{- fail "set database.url or database.existingSecret, not both" }}
{{- end }}
{{- if and .Values.database.existingSecret (ne .Values.database.engine "postgresql") }}
{{- fail "database.existingSecret needs database.engine=postgresql (the chart cannot read the URL inside the Secret)" }}
{{- end }}
{{- $git := .Values.docs.git }}
{{- if $git.enabled }}
{{- if not $git.repo }}
{{- fail "docs.git.repo is required when docs.git.enabled: the URL of the repository holding the docs (https://... or ssh://..., git@host:path)" }}
{{- end }}
{{- if not (or (hasPrefix "https://" $git.repo) (eq (include "eksbot.gitProtocol" .) "ssh")) }}
{{- fail (printf "docs.git.repo %q is neither an https:// nor an SSH URL (ssh://... or git@host:path)" $git.repo) }}
{{- end }}
{{- if hasKey .Values.config.extraEnv "EKSBOT_KNOWLEDGE_REFRESH_SECONDS" }}
{{- if le (float64 (index .Values.config.extraEnv "EKSBOT_KNOWLEDGE_REFRESH_SECONDS")) 0.0 }}
{{- fail "config.extraEnv.EKSBOT_KNOWLEDGE_REFRESH_SECONDS must be above 0 with docs.git.enabled: at 0 the bot reads the docs only at start and never sees a new revision" }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* Annotations both load balancers share: HTTPS, pod targets, health check, draining. */}}
{{- define "eksbot.albAnnotations" -}}
alb.ingress.kubernetes.io/target-type: ip
alb.ingress.kubernetes.io/listen-ports: '[{"HTTP": 80}, {"HTTPS": 443}]'
alb.ingress.kubernetes.io/ssl-redirect: "443"
alb.ingress.kubernetes.io/certificate-arn: {{ .Values.ingress.certificateArn | quote }}
alb.ingress.kubernetes.io/ssl-policy: {{ .Values.ingress.sslPolicy | quote }}
alb.ingress.kubernetes.io/backend-protocol: HTTP
alb.ingress.kubernetes.io/healthcheck-path: /healthz
alb.ingress.kubernetes.io/success-codes: "200"
alb.ingress.kubernetes.io/target-group-attributes: deregistration_delay.timeout_seconds={{ .Values.ingress.deregistrationDelaySeconds }}
{{- end }}

{{/* Every path to the service, /metrics answered 404 by the load balancer when blockMetrics. */}}
{{- define "eksbot.ingressPaths" -}}
{{- if .Values.ingress.blockMetrics }}
- path: /metrics
  pathType: Exact
  backend:
    service:
      name: block-metrics
      port:
        name: use-annotation
{{- end }}
- path: /
  pathType: Prefix
  backend:
    service:
      name: {{ include "eksbot.fullname" . }}
      port:
        name: http
{{- end }}

{{/*
The team's docs from Git (docs.git): "ssh" for an ssh:// or user@host:path URL, else "https". The checks
refuse any other scheme.
*/}}
{{- define "eksbot.gitProtocol" -}}
{{- $repo := .Values.docs.git.repo }}
{{- if or (hasPrefix "ssh://" $repo) (regexMatch "^[A-Za-z0-9._-]+@[^:/]+:" $repo) }}
{{- "ssh" }}
{{- else }}
{{- "https" }}
{{- end }}
{{- end }}

{{/* Where git-sync's root is mounted in the bot: a folder of the knowledge directory baked into the image. */}}
{{- define "eksbot.gitDocsDir" -}}
/app/knowledge/team-docs
{{- end }}

{{/* git-sync's error file, relative to its root (bot.knowledge.git_sync.ERROR_FILE: the bot looks for this name). */}}
{{- define "eksbot.gitSyncErrorFile" -}}
.git-sync-error.json
{{- end }}

{{/*
One git-sync container (docs.git): the init container (`oneTime`: the first sync, before the bot starts)
or the sidecar (every `period`). Non-root (git-sync's own user, 65533), read-only root filesystem.
*/}}
{{- define "eksbot.gitSyncContainer" -}}
{{- $git := .root.Values.docs.git }}
{{- $protocol := include "eksbot.gitProtocol" .root }}
- name: {{ .name }}
  image: {{ printf "%s:%s" $git.image.repository $git.image.tag }}
  imagePullPolicy: {{ $git.image.pullPolicy }}
  args:
    - --repo={{ $git.repo }}
    - --ref={{ $git.ref }}
    - --root=/git
    - --link=current
    - --depth=1
    # The last sync error, in the root beside the link (deleted after a sync that works): the bot reports it on
    # /readyz and /metrics. Hidden, so never read as knowledge.
    - --error-file={{ include "eksbot.gitSyncErrorFile" . }}
    {{- if .oneTime }}
    - --one-time
    {{- else }}
    - --period={{ $git.period }}
    # Keep serving the last good revision while the repository cannot be reached.
    - --max-failures=-1
    {{- end }}
    {{- if $git.path }}
    - --sparse-checkout-file=/etc/git-sync/sparse-checkout
    {{- end }}
    {{- if and $git.credentialsSecret (eq $protocol "https") }}
    - --password-file=/etc/git-secret/password
    {{- end }}
    {{- if and $git.credentialsSecret (eq $protocol "ssh") }}
    - --ssh-key-file=/etc/git-secret/ssh
    - --ssh-known-hosts={{ $git.sshKnownHosts }}
    {{- if $git.sshKnownHosts }}
    - --ssh-known-hosts-file=/etc/git-secret/known_hosts
    {{- end }}
    {{- end }}
  env:
    - name: HOME
      value: /tmp
    {{- if and $git.credentialsSecret (eq $protocol "https") }}
    - name: GITSYNC_USERNAME
      valueFrom:
        secretKeyRef:
          name: {{ $git.credentialsSecret }}
          key: username
    {{- end }}
  securityContext:
    runAsNonRoot: true
    runAsUser: 65533
    runAsGroup: 65533
    readOnlyRootFilesystem: true
    allowPrivilegeEscalation: false
    privileged: false
    capabilities:
      drop:
        - ALL
    seccompProfile:
      type: RuntimeDefault
  resources:
    {{- toYaml $git.resources | nindent 4 }}
  volumeMounts:
    - name: git-docs
      mountPath: /git
    - name: git-tmp
      mountPath: /tmp
    {{- if $git.path }}
    - name: git-sync-config
      mountPath: /etc/git-sync
      readOnly: true
    {{- end }}
    {{- if $git.credentialsSecret }}
    - name: git-credentials
      mountPath: /etc/git-secret
      readOnly: true
    {{- end }}
{{- end }}
