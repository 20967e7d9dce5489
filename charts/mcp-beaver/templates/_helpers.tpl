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

{{/*
A spec with confirm or approve grants served by more than one process: a confirmation's
retry or answer, or an approved call's repeat, may reach another process than the one
that asked. Pods must then share the confirm key (`access confirm-key-env="V"`, V from a
Secret) and one Redis (`limits redis-env="R"`); the workers of one pod already share
their primary's key, so they need Redis only. Refused here, since a pod cannot see its
siblings and would start, then answer CONFIRMATION_INVALID or park a second approval.
An inline spec is read; for existingSpecConfigMap, consent.* says what the spec holds.
*/}}
{{- define "mcp-beaver.consentGuard" -}}
{{- $inline := not .Values.existingSpecConfigMap.name -}}
{{- $spec := ternary .Values.spec "" $inline -}}
{{- $consent := .Values.consent -}}
{{- if or $consent.enabled (regexMatch "(?m)^[ \t]*(confirm|approve)[ \t]" $spec) -}}
{{- $replicas := ternary (int .Values.autoscaling.maxReplicas) (int .Values.replicaCount) .Values.autoscaling.enabled -}}
{{- $workers := int (include "mcp-beaver.workers" .) -}}
{{- if or (gt $replicas 1) (gt $workers 1) -}}
{{- $keyEnv := $consent.confirmKeyEnv -}}
{{- $redisEnv := $consent.redisEnv -}}
{{- if $inline -}}
{{- /* Outside comments: no "/" before it on its line. */ -}}
{{- $keyEnv = regexReplaceAll "(?s)^.*confirm-key-env[ \t]*=[ \t]*\"([^\"]+)\".*$" (regexFind "(?m)^[^/\n]*confirm-key-env[ \t]*=[ \t]*\"[^\"]+\"" $spec) "${1}" -}}
{{- $redisEnv = regexReplaceAll "(?s)^.*redis-env[ \t]*=[ \t]*\"([^\"]+)\".*$" (regexFind "(?m)^[^/\n]*redis-env[ \t]*=[ \t]*\"[^\"]+\"" $spec) "${1}" -}}
{{- end -}}
{{- $secretNames := list -}}
{{- range .Values.secretEnv }}{{ $secretNames = append $secretNames .name }}{{ end -}}
{{- $plainNames := list -}}
{{- range .Values.env }}{{ $plainNames = append $plainNames .name }}{{ end -}}
{{- /* envFromSecrets hides its keys: a variable may come from there (the pod refuses to
       start when a named variable is unset). */ -}}
{{- $fromSecret := gt (len .Values.envFromSecrets) 0 -}}
{{- $missing := list -}}
{{- if gt $replicas 1 -}}
{{- if not $keyEnv -}}
{{- $missing = append $missing (printf "%s, so each pod seals with a random key of its own" (ternary "the spec names no confirm key (access confirm-key-env=\"CONFIRM_KEY\")" "consent.confirmKeyEnv is empty (set it to the variable the spec's access confirm-key-env= names)" $inline)) -}}
{{- else if not (or $fromSecret (has $keyEnv $secretNames)) -}}
{{- $missing = append $missing (printf "the confirm key %s reaches the pod from no Secret (secretEnv or envFromSecrets)" $keyEnv) -}}
{{- end -}}
{{- end -}}
{{- if not $redisEnv -}}
{{- $missing = append $missing (printf "%s, so each process keeps its own approvals and spent confirmations" (ternary "the spec has no limits redis-env=\"REDIS_URL\"" "consent.redisEnv is empty (set it to the variable the spec's limits redis-env= names)" $inline)) -}}
{{- else if not (or $fromSecret (has $redisEnv $secretNames) (has $redisEnv $plainNames)) -}}
{{- $missing = append $missing (printf "the Redis URL %s reaches the pod from neither secretEnv, env nor envFromSecrets" $redisEnv) -}}
{{- end -}}
{{- if $missing -}}
{{- fail (printf "the spec has confirm or approve grants and the chart runs up to %d pod(s) of %d worker(s): a confirmation's retry or answer, or an approved call's repeat, may reach another process than the one that asked, but %s. Wire them (%s), or serve from one process (autoscaling.enabled=false, replicaCount=1, server.workers=1)" $replicas $workers (join "; and " $missing) (ternary "the spec's names in consent.confirmKeyEnv and consent.redisEnv, each from a Secret" "access confirm-key-env and limits redis-env in the spec, each variable from a Secret" (not $inline))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/*
The variable an inline spec names in `<prop>="V"`, or "": called with (list $spec
"token-key-env"). Comments are dropped first: whole `//` lines and a `//` after a blank
(an issuer's `https://` on the same line is kept).
*/}}
{{- define "mcp-beaver.specVariable" -}}
{{- $spec := regexReplaceAll "(?m)(^|[ \t])//.*$" (index . 0) "" -}}
{{- $prop := index . 1 -}}
{{- regexReplaceAll (printf "(?s)^.*%s[ \t]*=[ \t]*\"([^\"]+)\".*$" $prop) (regexFind (printf "(?m)(^|[ \t])%s[ \t]*=[ \t]*\"[^\"]+\"" $prop) $spec) "${1}" -}}
{{- end }}

{{/*
A spec with `sign-in` (spec-language.md in the repository, "Sign-in for MCP clients"):
the gateway signs access tokens and seals its codes with a key derived from
token-key-env, and calls the provider as the client in client-id-env/client-secret-env.
Each comes from a Secret key (signIn.*.secretKeyRef), never a plain value. The public URL
is required: the pod behind a Service and an Ingress cannot know the https URL its
clients and the provider see, and the tokens' issuer and the callback are under it. A
refresh token is single use across every process only through Redis: several pods or
workers without `limits redis-env` would each keep their own spent tokens, and a stolen
refresh token could be spent once per process. Refused here, since a pod cannot see its
siblings. An inline spec is read; for existingSpecConfigMap, signIn.* says what it holds.
*/}}
{{- define "mcp-beaver.signInGuard" -}}
{{- $inline := not .Values.existingSpecConfigMap.name -}}
{{- $spec := ternary .Values.spec "" $inline -}}
{{- $signIn := .Values.signIn -}}
{{- $inSpec := regexMatch "(?m)^[ \t]*sign-in[ \t]" $spec -}}
{{- if and $inline $inSpec (not $signIn.enabled) -}}
{{- fail "the spec has sign-in, so every pod needs its token key and the provider client's id and secret: set signIn.enabled=true and signIn.tokenKeyEnv, signIn.clientIdEnv and signIn.clientSecretEnv (each the variable the spec names and a secretKeyRef to an existing Secret's key)" -}}
{{- end -}}
{{- if and $inline $signIn.enabled (not $inSpec) -}}
{{- fail "signIn.enabled is true but the spec has no sign-in (access token-key-env=\"V\" { sign-in issuer=... client-id-env=... client-secret-env=... }): add it to the spec, or set signIn.enabled=false" -}}
{{- end -}}
{{- if $signIn.enabled -}}
{{- $plainNames := list -}}
{{- range .Values.env }}{{ $plainNames = append $plainNames .name }}{{ end -}}
{{- range $field, $prop := dict "tokenKeyEnv" "token-key-env" "clientIdEnv" "client-id-env" "clientSecretEnv" "client-secret-env" -}}
{{- $v := index $signIn $field -}}
{{- if or (not $v.name) (not $v.secretKeyRef.name) (not $v.secretKeyRef.key) -}}
{{- fail (printf "signIn.%s needs name (the variable the spec's %s= names) and secretKeyRef.name and secretKeyRef.key (an existing Secret's key holding it)" $field $prop) -}}
{{- end -}}
{{- if has $v.name $plainNames -}}
{{- fail (printf "%s (signIn.%s) is also in env, as a plain value: it is a secret, set it from signIn.%s.secretKeyRef only" $v.name $field $field) -}}
{{- end -}}
{{- if $inline -}}
{{- $named := include "mcp-beaver.specVariable" (list $spec $prop) -}}
{{- if ne $named $v.name -}}
{{- fail (printf "signIn.%s.name is %s, but the spec's %s= names %s: make them the same variable" $field (quote $v.name) $prop (quote $named)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if not .Values.server.publicUrl -}}
{{- fail "signIn needs server.publicUrl (https://... as MCP clients reach the gateway): the access tokens' issuer and audience are under it, and the redirect URI to register at the provider is <publicUrl>/callback; behind a Service and an Ingress the pod cannot tell it" -}}
{{- end -}}
{{- $replicas := ternary (int .Values.autoscaling.maxReplicas) (int .Values.replicaCount) .Values.autoscaling.enabled -}}
{{- $workers := int (include "mcp-beaver.workers" .) -}}
{{- if or (gt $replicas 1) (gt $workers 1) -}}
{{- $redisEnv := ternary (include "mcp-beaver.specVariable" (list $spec "redis-env")) $signIn.redisEnv $inline -}}
{{- $secretNames := list -}}
{{- range .Values.secretEnv }}{{ $secretNames = append $secretNames .name }}{{ end -}}
{{- $fromSecret := gt (len .Values.envFromSecrets) 0 -}}
{{- if not $redisEnv -}}
{{- fail (printf "the spec has sign-in and the chart runs up to %d pod(s) of %d worker(s), but %s: each process would keep its own spent refresh tokens, so a refresh token could be used once per process. Add limits redis-env=\"REDIS_URL\" to the spec (the URL from a Secret), or serve from one process (autoscaling.enabled=false, replicaCount=1, server.workers=1)" $replicas $workers (ternary "the spec has no limits redis-env=\"REDIS_URL\"" "signIn.redisEnv is empty (set it to the variable the spec's limits redis-env= names)" $inline)) -}}
{{- else if not (or $fromSecret (has $redisEnv $secretNames) (has $redisEnv $plainNames)) -}}
{{- fail (printf "the spec has sign-in on up to %d pod(s) of %d worker(s), and the Redis URL %s that keeps its spent refresh tokens reaches the pod from neither secretEnv, env nor envFromSecrets" $replicas $workers $redisEnv) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/*
Upstream identity (the gateway's docs/upstream-identity.md): the client IDs and secrets
an upstream's `auth client-credentials` / `auth exchange` and an `oauth-provider` name,
and, with `auth user`, the token key that encrypts connected accounts. Each entry of
upstreamCredentials is a variable from a Secret key, never a plain value. An inline spec
is read: every client-id-env / client-secret-env it names (sign-in's included) and, with
`auth user`, its token-key-env must reach the pod from a Secret (upstreamCredentials,
secretEnv, signIn, or envFromSecrets, whose keys the chart cannot see), or start-up would
stop on the missing variable; and none may be a plain `env` value. Connected accounts are
kept in Redis with `limits redis-env`, else in each process's memory: on several
processes a person connected through one pod would be unknown to the next, so that is
refused as sign-in's single-use refresh tokens are.
*/}}
{{- define "mcp-beaver.upstreamCredentialsGuard" -}}
{{- $inline := not .Values.existingSpecConfigMap.name -}}
{{- $plainNames := list -}}
{{- range .Values.env }}{{ $plainNames = append $plainNames .name }}{{ end -}}
{{- $fromSecrets := list -}}
{{- range .Values.secretEnv }}{{ $fromSecrets = append $fromSecrets .name }}{{ end -}}
{{- if .Values.signIn.enabled -}}
{{- range list .Values.signIn.tokenKeyEnv .Values.signIn.clientIdEnv .Values.signIn.clientSecretEnv }}{{ $fromSecrets = append $fromSecrets .name }}{{ end -}}
{{- end -}}
{{- range $i, $c := .Values.upstreamCredentials -}}
{{- if or (not $c.name) (not $c.secretKeyRef.name) (not $c.secretKeyRef.key) -}}
{{- fail (printf "upstreamCredentials[%d] needs name (the variable the spec's client-id-env, client-secret-env or token-key-env names) and secretKeyRef.name and secretKeyRef.key (an existing Secret's key holding it)" $i) -}}
{{- end -}}
{{- if has $c.name $plainNames -}}
{{- fail (printf "%s (upstreamCredentials[%d]) is also in env, as a plain value: it is a secret, set it from upstreamCredentials only" $c.name $i) -}}
{{- end -}}
{{- $fromSecrets = append $fromSecrets $c.name -}}
{{- end -}}
{{- if $inline -}}
{{- $spec := regexReplaceAll "(?m)(^|[ \t])//.*$" .Values.spec "" -}}
{{- $needed := list -}}
{{- range regexFindAll "(?m)(^|[ \t])client-(id|secret)-env([ \t]*=[ \t]*|[ \t]+)\"[^\"]+\"" $spec -1 -}}
{{- $needed = append $needed (regexReplaceAll "(?s)^.*\"([^\"]+)\"$" . "${1}") -}}
{{- end -}}
{{- $user := regexMatch "(?m)^[ \t]*auth[ \t]+user[ \t]" $spec -}}
{{- if $user -}}
{{- $key := include "mcp-beaver.specVariable" (list $spec "token-key-env") -}}
{{- if $key }}{{ $needed = append $needed $key }}{{ end -}}
{{- end -}}
{{- $anySecret := gt (len .Values.envFromSecrets) 0 -}}
{{- range uniq $needed -}}
{{- if has . $plainNames -}}
{{- fail (printf "%s, which the spec names as an upstream's or a provider's client ID, client secret or token key, is in env as a plain value: it is a secret, set it from upstreamCredentials (a Secret's key) instead" .) -}}
{{- end -}}
{{- if not (or $anySecret (has . $fromSecrets)) -}}
{{- fail (printf "the spec names %s (client-id-env, client-secret-env or token-key-env) but no Secret gives it to the pod, so the gateway would stop at start-up: add it to upstreamCredentials (name %s, secretKeyRef of an existing Secret's key)" . .) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $user := and $inline (regexMatch "(?m)^[ \t]*auth[ \t]+user[ \t]" (regexReplaceAll "(?m)(^|[ \t])//.*$" .Values.spec "")) -}}
{{- if $user -}}
{{- $replicas := ternary (int .Values.autoscaling.maxReplicas) (int .Values.replicaCount) .Values.autoscaling.enabled -}}
{{- $workers := int (include "mcp-beaver.workers" .) -}}
{{- if and (or (gt $replicas 1) (gt $workers 1)) (not (include "mcp-beaver.specVariable" (list .Values.spec "redis-env"))) -}}
{{- fail (printf "the spec has auth user and the chart runs up to %d pod(s) of %d worker(s) without limits redis-env: each process would keep its own connected accounts, so a person who connected through one pod would be asked again by the next. Add limits redis-env=\"REDIS_URL\" to the spec (the URL from a Secret), or serve from one process (autoscaling.enabled=false, replicaCount=1, server.workers=1)" $replicas $workers) -}}
{{- end -}}
{{- end -}}
{{- end }}
