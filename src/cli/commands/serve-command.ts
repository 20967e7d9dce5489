/** `mcp-beaver serve`: its flags and its help. */
import { DEFAULT_LISTEN } from '../../server/listen-address.js';
import { POD_WARM_UP, WARM_UP_ENV } from '../../server/warm-up/warm-up-setting.js';
import { defineCommand } from '../flags.js';

export const SERVE_COMMAND = defineCommand({
  name: 'serve',
  usage: ['<spec.mcp.kdl>', '<spec.mcp.kdl> --stdio [--key-env NAME] [--toolset NAME]'],
  operands: { min: 1, max: 1, wrong: 'name exactly one spec file' },
  about: `
Serves every grant of the spec from one process:
  POST /mcp            MCP Streamable HTTP, stateless (2026-07-28 and 2025-11-25 clients)
  POST /api/<tool>     REST: the tool arguments as a JSON body, the envelope back
  GET  /api            the REST tools, and the resources and prompts
  POST /api/resources/read, POST /api/prompts/get
                       REST: read a resource {"uri"}, get a prompt {"name", "arguments"}
  GET  /openapi.json   the REST tools as an OpenAPI 3.1 document
  GET  /healthz        liveness;  GET /readyz  readiness (503 while draining)
or, with --stdio, only MCP over stdin and stdout, for a host that launches its servers.`,
  flags: {
    stdio: {
      type: 'boolean',
      help: 'Serve MCP over stdin/stdout (both eras) instead of listening',
      note: 'For a desktop host whose config names a command. stdout carries only JSON-RPC; logs go to stderr. No HTTP listener, REST, catalog page, /metrics, readiness or reload. Without `access` in the spec the local user holds every scope; with it, --key-env is required.',
    },
    'key-env': {
      type: 'string',
      value: 'NAME',
      help: "With --stdio: the variable holding one of the spec's API keys, whose scopes the stdio caller gets",
      note: 'Required when the spec has `access`: stdio does not step around it. Checked at start-up.',
    },
    toolset: {
      type: 'string',
      value: 'NAME',
      help: 'With --stdio: serve only the members of this toolset (what /mcp/<name> serves over HTTP)',
      note: 'A name the spec does not declare stops start-up, naming the toolsets it has.',
    },
    http: {
      type: 'string',
      value: '[host]:port',
      default: DEFAULT_LISTEN,
      help: 'Where to listen',
      note: '":8080" means all interfaces, "8080" loopback only. Binding beyond loopback needs an `access` block in the spec, or --insecure-no-auth.',
    },
    'insecure-no-auth': {
      type: 'boolean',
      help: 'Allow a non-loopback bind without `access`: something in front of the gateway authenticates callers',
    },
    'allowed-host': {
      type: 'string',
      multiple: true,
      value: 'NAME',
      help: 'A Host header value to accept',
      note: 'For example the Kubernetes Service name. Without the flag, a loopback bind accepts loopback names only.',
    },
    workers: {
      type: 'string',
      value: 'N|auto',
      default: '1',
      help: 'Serve from N processes on the one port; auto: the CPUs this process may use',
      note: "auto reads the CPU affinity and a container's CPU quota. Each worker answers both surfaces; --max-in-flight is per worker. With rate-limit, confirm or approve grants the spec needs `limits redis-env` (WORKERS_NEED_REDIS otherwise).",
    },
    'warm-up': {
      type: 'string',
      value: 'N|off',
      help: `Requests the gateway sends itself before it is ready (default off; ${WARM_UP_ENV}; the container image and the Helm chart ask for ${POD_WARM_UP})`,
      note: 'A fresh process runs its request path slowly until V8 has optimized it: its first 500 calls cost 6-9× its steady CPU, 3.5-4× after a warm-up of 500, which spends about 1 s of CPU (and ~15 MB of memory a serving process reaches anyway) before the listening line and the first /readyz 200 (a stub upstream on 127.0.0.1 and a spec of its own: no upstream of yours is called, nothing is counted, audited or exported). More requests do not warm much more (bench/RESULTS.md). off (or 0), the default, skips it; each of --workers warms itself; a reload does not warm again; a warm-up that fails is logged and the gateway serves anyway.',
    },
    'max-in-flight': {
      type: 'string',
      value: 'N',
      default: '1024',
      help: 'Calls in flight at once before the excess is shed with 503',
    },
    grace: {
      type: 'string',
      value: 'DURATION',
      default: '10s',
      help: 'How long SIGTERM waits for in-flight calls',
    },
    'base-url': {
      type: 'string',
      value: 'URL',
      help: "Replace the spec's base-url (a staging upstream, a local mock)",
    },
    'public-url': {
      type: 'string',
      value: 'URL',
      help: "The gateway's URL as clients reach it (behind a proxy or Service)",
      note: 'Used in OAuth metadata and 401 challenges.',
    },
    'metrics-http': {
      type: 'string',
      value: '[host]:port',
      help: "Serve GET /metrics on this listener only, not on the gateway's port",
      note: 'For example ":9090", for a Prometheus scraping pod IPs.',
    },
    otlp: {
      type: 'string',
      value: 'URL',
      help: 'Export OpenTelemetry traces and metrics to this OTLP/HTTP collector',
      note: 'A base URL like OTEL_EXPORTER_OTLP_ENDPOINT: /v1/traces and /v1/metrics are appended.',
    },
    'no-watch': {
      type: 'boolean',
      help: 'Do not reload when the spec file changes (SIGHUP still reloads)',
    },
    'log-level': {
      type: 'string',
      value: 'LEVEL',
      default: 'info',
      help: 'trace, debug, info, warn or error',
      note: 'Logs are JSON on stdout (on stderr with --stdio).',
    },
  },
  more: `
Credentials and keys come from the environment variables the spec names (\`auth\`,
\`api-key\`, \`database\`, \`from-env\`...): start-up names every missing one in one
error, each with its line in the spec; \`mcp-beaver check --env <spec>\` lists them first.

The spec is reloaded on SIGHUP and when its file changes (a Kubernetes ConfigMap update
included): a spec that does not compile is refused with a logged error and the last good
one keeps serving; calls in flight finish on the grant they started with.
With --workers N (or auto: the CPUs the process may use) this process forks N workers
that serve the one port, and passes them SIGTERM, SIGHUP and spec changes; a worker that
dies is replaced, one that fails to start stops them all. /metrics is the sum over the
workers; each log line names its worker. Rate limits, approvals and confirmations must
then be shared: a spec with such grants needs \`limits redis-env\`.
GET /metrics serves Prometheus metrics: on the --metrics-http listener when given, else on
the gateway's port, where with \`access\` it needs a key or token holding the scope
metrics:read (they name every tool). Logs carry one access line per request and one
audit line per tool call (no argument values).

With --stdio one local caller is served, so there is no listener to guard: the flags
of the HTTP side (--http, --allowed-host, --public-url, --insecure-no-auth,
--metrics-http, --no-watch, --workers, --warm-up) are refused, the spec is read once
(the host restarts the process to pick up a change), and a grant with \`approve\` stops
start-up (its approvals page is served over HTTP). --max-in-flight, --grace,
--base-url, --otlp and --log-level hold as they do for the listener.

OpenTelemetry traces and metrics (OTLP/HTTP) are exported when --otlp or
OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT /
OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) is set; otherwise no OpenTelemetry code is loaded.
The standard variables are honoured, a bad value stops start-up naming it:
  OTEL_SERVICE_NAME              default mcp-beaver
  OTEL_RESOURCE_ATTRIBUTES       key=value,... added to the resource (service.version
                                 and a per-process service.instance.id are set already)
  OTEL_EXPORTER_OTLP_PROTOCOL    http/protobuf (default) or http/json
  OTEL_EXPORTER_OTLP_HEADERS     key=value,... (the collector's credentials)
  OTEL_EXPORTER_OTLP_TIMEOUT     and the _TRACES_/_METRICS_ forms of these three
  OTEL_EXPORTER_OTLP_COMPRESSION gzip, or unset
  OTEL_EXPORTER_OTLP_CERTIFICATE, _CLIENT_KEY, _CLIENT_CERTIFICATE
                                 PEM files for an https collector (its CA; the client's
                                 key and certificate), and their _TRACES_/_METRICS_ forms
  OTEL_TRACES_SAMPLER            parentbased_always_on (default), always_on, always_off,
                                 traceidratio, parentbased_always_off or
                                 parentbased_traceidratio; OTEL_TRACES_SAMPLER_ARG is
                                 the ratio
  OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_SCHEDULE_DELAY,
  OTEL_BSP_EXPORT_TIMEOUT, OTEL_METRIC_EXPORT_INTERVAL, OTEL_METRIC_EXPORT_TIMEOUT
  OTEL_TRACES_EXPORTER=none, OTEL_METRICS_EXPORTER=none, OTEL_SDK_DISABLED=true
Export is batched: a collector that is down loses telemetry, never a call, and the log
says so once per signal. Spans, attributes and metrics: docs/observability.md.

Examples:
  GITHUB_TOKEN=... mcp-beaver serve specs/github-issues.mcp.kdl --http :8080
  GITHUB_TOKEN=... mcp-beaver serve specs/github-issues.mcp.kdl --stdio`,
});
