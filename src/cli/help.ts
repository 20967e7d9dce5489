/** Help texts: each teaches the command with an example that works on specs/. */
import { DEFAULT_LISTEN } from '../server/listen-address.js';

/**
 * The main help of a build: the single executable (scripts/build-binary.mjs) has no
 * `demo` and no `import` (they need files only the npm package carries), so its help
 * does not offer them, and says where they are.
 */
export function mainHelp(build: { binary: boolean } = { binary: false }): string {
  const onlyInPackage = (line: string): string[] => (build.binary ? [] : [line]);
  return [
    'mcp-beaver — serve declarative grants to AI agents over MCP and REST',
    '',
    'Usage:',
    '  mcp-beaver <command> [options]',
    '',
    'Commands:',
    '  serve <spec>           Serve the grants: MCP at POST /mcp, REST at POST /api/<tool>',
    ...onlyInPackage(
      '  demo                   Serve the bundled helpdesk demo on 127.0.0.1:8080 (npm start)',
    ),
    '  check <spec>...        Compile specs; list tools, resources and prompts, or every error',
    '                         with file:line:col',
    '  tools <spec> [--json]  Show the tools, resources and prompts exactly as MCP lists them',
    '  openapi <spec>         Print the OpenAPI 3.1 document of the REST surface',
    ...onlyInPackage(
      '  import openapi <file>  Draft a guarded spec from an OpenAPI 3.x or Swagger 2.0 document',
    ),
    ...(build.binary
      ? ['  (demo and import openapi are in the npm package, not in this single executable)']
      : []),
    '',
    'Talking to a running gateway, or any MCP server over Streamable HTTP:',
    "  tools <url> [--json]   List the server's tools, resources and prompts",
    '  call <url> <tool> [args]',
    '                         Call one tool and print its result',
    '  read <url> <uri>       Read one resource and print its contents',
    '  prompt <url> <name> [args]',
    '                         Get one prompt and print its messages',
    '  discover <url>         Print server/discover (or the initialize result)',
    '',
    'Options:',
    '  -h, --help             Show help (also: mcp-beaver <command> --help)',
    '  -v, --version          Print the version',
    '',
    'Examples:',
    '  mcp-beaver serve specs/github-issues.mcp.kdl --http 127.0.0.1:8080',
    '  mcp-beaver check specs/github-issues.mcp.kdl',
    '  mcp-beaver tools specs/orders-db.mcp.kdl --json',
    '  mcp-beaver openapi specs/github-issues.mcp.kdl > openapi.json',
    ...onlyInPackage('  mcp-beaver import openapi petstore.yaml -o petstore.mcp.kdl'),
    '  mcp-beaver call http://127.0.0.1:8080/mcp list_issues \'{"owner":"acme","repo":"rocket"}\'',
    '  mcp-beaver read http://127.0.0.1:8080/mcp helpdesk://tickets/1',
    '  mcp-beaver prompt http://127.0.0.1:8080/mcp triage-ticket id=1 tone=formal',
    '',
    'The spec language is described in docs/spec-language.md.',
    '',
  ].join('\n');
}

export const MAIN_HELP = mainHelp();

export const CHECK_HELP = `Usage: mcp-beaver check <spec.mcp.kdl | folder>... [--quiet]

A folder stands for every *.mcp.kdl file in it (mcp-beaver check specs/).
Compiles each spec without contacting anything: no environment variable, upstream
or database is needed. Prints one line per tool, resource, template and prompt:

  specs/demo.mcp.kdl: 9 tools, 4 resources, 1 prompt
    get_ticket  GET /tickets/{id}  read-only idempotent open-world
    ...
    resource docs://helpdesk/hours    text (text/plain)
    template helpdesk://tickets/{id}  from get_ticket (application/json)
    prompt   triage-ticket            arguments id, tone?  embeds helpdesk://tickets/{id}

(a resource is served from a file beside the spec, inline text, or a grant; scope= names
what a caller must hold to see it), and warnings (a grant without describe, an unused restrict) on stderr.
On errors, prints every one of them, one per line, as
  file:line:col: error CODE: grant name: field: what is wrong
and exits 1. Exit 0 means every spec compiled.

Options:
  --quiet    Print nothing on success
  -h, --help Show this help
`;

const REMOTE_OPTIONS = `  --header 'Name: value'  Send this header on every request (repeatable)
  --bearer-env VAR        Send "Authorization: Bearer <$VAR>": the token stays out of
                          shell history and process listings
  --era auto|modern|legacy
                          auto (default): server/discover first, initialize when the
                          server does not speak 2026-07-28; modern: 2026-07-28 only;
                          legacy: the 2025-11-25 initialize handshake only
  --timeout DURATION      Bound on each request, e.g. 10s, 500ms, 2m (default 30s)`;

const REMOTE_EXITS = `Exit codes: 0 success; 2 when the server cannot be reached, answers with an HTTP
error or a JSON-RPC error (printed as one line with the status or code), or the
command line is wrong.`;

export const TOOLS_HELP = `Usage: mcp-beaver tools <spec.mcp.kdl> [--json]
       mcp-beaver tools <url> [--json] [options]

With a spec: shows the tools the spec serves, in spec order, exactly as MCP
tools/list returns them (name, title, description, inputSchema, outputSchema,
annotations), then its resources, resource templates and prompts as
resources/list, resources/templates/list and prompts/list return them.
  Without --json: one block per tool: name, title and the hints of its annotations
                  (read-only, write, destructive, idempotent, open-world), then
                  each argument with its rules (one of ..., the restrict allowlists
                  among them; pattern, bounds, length, format, default); then one
                  block per resource (with its template variables) and per prompt
                  (with its arguments).
  With --json:    the {"tools": [...]} result object, for diffing or other tooling,
                  with "resources" and "resourceTemplates" beside it when the spec
                  has resources, and "prompts" when it has prompts.
  Exits 1 (listing every error) when the spec does not compile.

With an http:// or https:// URL: lists the tools of that running MCP server, and
its resources, templates and prompts when it advertises them (a gateway lists only
what the caller's scopes allow).
  Without --json: one line per tool: name, title, and the hints it declares
                  (read-only, write, destructive, idempotent, open-world); then a
                  "Resources:", "Resource templates:" and "Prompts:" section each.
                  Control characters in the server's text are printed escaped
                  (ESC as \\u001b), so it cannot drive the terminal.
  With --json:    the tools/list result as the server sent it, with the arrays
                  "resources", "resourceTemplates" and "prompts" added beside "tools".

Options for a URL:
${REMOTE_OPTIONS}

${REMOTE_EXITS}

Examples:
  mcp-beaver tools specs/orders-db.mcp.kdl --json
  MCP_TOKEN=... mcp-beaver tools https://gateway.example.com/mcp --bearer-env MCP_TOKEN
`;

export const CALL_HELP = `Usage: mcp-beaver call <url> <tool> [name=value... | json-args | @file | -] [options]

Calls one tool of a running MCP server (a gateway's POST /mcp, or any server
speaking Streamable HTTP) and prints the result: structuredContent as indented
JSON when the server sent it, the text blocks otherwise. The arguments are a JSON
object given inline, read from a file (@args.json) or from stdin (-); none means {}.
Or name=value words, each typed by the tool's input schema (read from tools/list):
a string argument takes the text as it is, an integer or number a number, a boolean
true or false, an array or object JSON. name:=json sends the JSON value as it is
(tags:='["a","b"]', note:=null).

A result with isError (bad arguments, a denied call, an upstream failure) prints
its message on stderr and exits 1.

Options:
  --json                  Print the whole tools/call result as JSON
${REMOTE_OPTIONS}
  -h, --help              Show this help

Exit codes: 0 success; 1 the tool answered isError; 2 when the server cannot be
reached, answers with an HTTP error or a JSON-RPC error (printed as one line with the
status or code), or the command line is wrong.

Examples:
  mcp-beaver call http://127.0.0.1:8080/mcp list_issues '{"owner":"acme","repo":"rocket"}'
  mcp-beaver call http://127.0.0.1:8080/mcp get_issue owner=acme repo=rocket number=7
  echo '{"owner":"acme","repo":"rocket"}' | mcp-beaver call http://127.0.0.1:8080/mcp list_issues -
  mcp-beaver call https://gateway.example.com/mcp get_order @order.json --bearer-env MCP_TOKEN
`;

export const READ_HELP = `Usage: mcp-beaver read <url> <uri> [options]

Reads one resource of a running MCP server (resources/read) and prints its
contents: text as it is; binary content (a blob) as its bytes when stdout is
redirected (mcp-beaver read ... > picture.png), or one line saying what it is on a
terminal. The URI is a resource's URI or one a template matches: a gateway reads
helpdesk://tickets/{id} as helpdesk://tickets/42 by calling its grant with id 42,
as the caller, so scopes, restrict and the argument rules apply.
\`mcp-beaver tools <url>\` lists the resources and templates.

Options:
  --json                  Print the whole resources/read result as JSON
${REMOTE_OPTIONS}
  -h, --help              Show this help

Exit codes: 0 success; 1 the server answered the read with an error (no resource
serves the URI, a variable or argument refused, an upstream failure), printed as one
line with the JSON-RPC code and the gateway's error code; 2 when the server cannot be
reached, answers with an HTTP error (a missing scope is HTTP 403), or the command line
is wrong.

Examples:
  mcp-beaver read http://127.0.0.1:8080/mcp docs://helpdesk/support-handbook
  mcp-beaver read http://127.0.0.1:8080/mcp helpdesk://tickets/1 --json
  mcp-beaver read https://gateway.example.com/mcp docs://x/logo.png --bearer-env MCP_TOKEN > logo.png
`;

export const PROMPT_HELP = `Usage: mcp-beaver prompt <url> <name> [name=value... | json-args | @file | -] [options]

Gets one prompt of a running MCP server (prompts/get) and prints its messages, each
as [role] and its text; a message embedding a resource names it, then shows its
text. Prompt arguments are strings: give them as name=value words, or as one JSON
object inline, from a file (@args.json) or from stdin (-). Arguments left out take
their defaults; \`mcp-beaver tools <url>\` lists the prompts and their arguments
(a ? marks an optional one).

Options:
  --json                  Print the whole prompts/get result as JSON
${REMOTE_OPTIONS}
  -h, --help              Show this help

Exit codes: 0 success; 1 the server answered with an error (no such prompt, an
argument missing or refused, a resource it embeds could not be read), printed as
one line with the JSON-RPC code and the gateway's error code; 2 when the server
cannot be reached, answers with an HTTP error (a missing scope is HTTP 403), or the
command line is wrong.

Examples:
  mcp-beaver prompt http://127.0.0.1:8080/mcp triage-ticket id=1 tone=formal
  mcp-beaver prompt http://127.0.0.1:8080/mcp triage-ticket '{"id":"1"}' --json
`;

export const DISCOVER_HELP = `Usage: mcp-beaver discover <url> [options]

Prints, as JSON, what a running MCP server says about itself: the server/discover
result (supportedVersions, capabilities, serverInfo, instructions, cache hints) from
a 2026-07-28 server, or the initialize result (protocolVersion, capabilities,
serverInfo, instructions) from a 2025-era one. With --era auto (the default) the
shape tells which era the server answered in.

Options:
${REMOTE_OPTIONS}
  -h, --help              Show this help

${REMOTE_EXITS}

Example:
  mcp-beaver discover http://127.0.0.1:8080/mcp --era legacy
`;

export const OPENAPI_HELP = `Usage: mcp-beaver openapi <spec.mcp.kdl> [--server-url URL]

Prints the OpenAPI 3.1 document of the spec's REST surface as JSON on stdout: one
POST /api/<tool> per grant, the tool's inputSchema as the request body, the envelope
as the 200 answer, and the catalogue errors the grant can answer with. It is the
document a running gateway serves at GET /openapi.json, for a caller holding every
scope (the gateway leaves out the tools a caller may not call).

Options:
  --server-url URL   The gateway's URL, written as servers[0].url
                     (GET /openapi.json fills in the URL it was reached at)
  -h, --help         Show this help

Exits 1 (listing every error) when the spec does not compile.

Example:
  mcp-beaver openapi specs/github-issues.mcp.kdl --server-url http://127.0.0.1:8080
`;

export const SERVE_HELP = `Usage: mcp-beaver serve <spec.mcp.kdl> [options]

Serves every grant of the spec from one process:
  POST /mcp            MCP Streamable HTTP, stateless (2026-07-28 and 2025-11-25 clients)
  POST /api/<tool>     REST: the tool arguments as a JSON body, the envelope back
  GET  /api            the REST tools, and the resources and prompts
  POST /api/resources/read, POST /api/prompts/get
                       REST: read a resource {"uri"}, get a prompt {"name", "arguments"}
  GET  /openapi.json   the REST tools as an OpenAPI 3.1 document
  GET  /healthz        liveness;  GET /readyz  readiness (503 while draining)

Options:
  --http [host]:port     Where to listen (default ${DEFAULT_LISTEN}). ":8080" means all
                         interfaces, "8080" loopback only. Binding beyond loopback needs
                         an \`access\` block in the spec, or --insecure-no-auth.
  --insecure-no-auth     Allow a non-loopback bind without \`access\` (something in front
                         of the gateway authenticates callers).
  --allowed-host NAME    Host header values to accept (repeatable), e.g. the Kubernetes
                         Service name; without it, a loopback bind accepts loopback names only.
  --max-in-flight N      Calls in flight at once before the excess is shed with 503 (1024).
  --grace DURATION       How long SIGTERM waits for in-flight calls (default 10s).
  --base-url URL         Replace the spec's base-url (a staging upstream, a local mock).
  --public-url URL       The gateway's URL as clients reach it (behind a proxy or Service),
                         used in OAuth metadata and 401 challenges.
  --metrics-http [host]:port
                         Serve GET /metrics on this listener only (e.g. ":9090" for a
                         Prometheus scraping pod IPs), not on the gateway's port.
  --no-watch             Do not reload when the spec file changes (SIGHUP still reloads).
  --log-level LEVEL      trace, debug, info (default), warn, error. Logs are JSON on stdout.
  -h, --help             Show this help

Upstream credentials come from the environment variables the spec's \`auth\` names; a
missing one stops start-up and names it.

The spec is reloaded on SIGHUP and when its file changes (a Kubernetes ConfigMap update
included): a spec that does not compile is refused with a logged error and the last good
one keeps serving; calls in flight finish on the grant they started with.
GET /metrics serves Prometheus metrics: on the --metrics-http listener when given, else on
the gateway's port, where with \`access\` it needs a key or token holding the scope
metrics:read (they name every tool). Logs carry one access line per request and one
audit line per tool call (no argument values).

Example:
  GITHUB_TOKEN=... mcp-beaver serve specs/github-issues.mcp.kdl --http :8080
`;

export const DEMO_HELP = `Usage: mcp-beaver demo [--http 127.0.0.1:8080]

Starts a small helpdesk REST API and an embedded Postgres on this machine,
then serves specs/demo.mcp.kdl against them: ticket tools over HTTP, order tools
over SQL, a support handbook and ticket resources, and a triage prompt. Nothing
leaves 127.0.0.1; no API key or database server is needed.

Options:
  --http [host]:port   Where the gateway listens (default 127.0.0.1:8080)
  --log-level LEVEL    Gateway logs on stdout (default warn)
  -h, --help           Show this help
`;

export const IMPORT_HELP = `Usage: mcp-beaver import openapi <file> [-o out.mcp.kdl] [options]

Drafts a spec from an OpenAPI 3.0 or 3.1 or Swagger 2.0 document (JSON or YAML;
$refs to other files are followed, relative to the document). The draft is guarded
from the start: read-only unless you ask for writes, typed arguments with the
document's bounds, enums and formats, nothing undeclared forwarded, the upstream
credential read from an environment variable. Review it, tighten it, then serve it.

  - One grant per selected operation, named for an agent to read:
    GET /repos/{owner}/{repo}/issues becomes list_repo_issues.
  - Only GET operations unless --writes. (HEAD is selected too, and reported as
    skipped: grants call GET, POST, PUT, PATCH or DELETE.)
  - Each grant starts with a comment naming its source, e.g.
    // GET /repos/{owner}/{repo}/issues (issues/list-for-repo)
  - What the language cannot express is left out with a // comment saying why: a
    header or cookie parameter, a pattern our safety check refuses, a field of
    several types; an operation that cannot be expressed at all (a multipart body,
    a path like /compare/{base}...{head}) is skipped whole, with its reason.
  - The summary goes to stderr: imported N of M operations; K skipped, with each
    reason counted and every tool name that had to be made unique.

Options:
  -o, --output FILE    Write the draft here (default: stdout)
  --include PATTERN    Only operations matching: "GET /repos/*", "/users/*" or an
                       operationId such as "issues/*" (* matches any text). Repeatable.
  --tag TAG            Only operations with this tag. Repeatable; --tag and --include
                       together select what either one selects.
  --exclude PATTERN    Leave out matching operations; wins over --include and --tag.
  --writes             Draft POST, PUT, PATCH and DELETE operations too
  --base-url URL       The upstream URL (default: the document's first server)
  --list-tags          Print the document's tags with their operation counts; no draft
  -h, --help           Show this help

Exit codes: 0 the draft was written; 1 the document cannot be imported (no such
file, not JSON or YAML, not OpenAPI, a $ref to a file that does not exist) or the
filters select no operation (the document's tags are named), said in one line;
2 the command line is wrong.

Next steps:
  mcp-beaver check draft.mcp.kdl           every draft passes; read the // comments
  mcp-beaver tools draft.mcp.kdl           see the tools as an agent will
Then tighten it (docs/spec-language.md, "Importing an OpenAPI document"): delete the
grants you do not need, add restrict allowlists, scope and rate-limit.

Examples:
  mcp-beaver import openapi api.github.com.json --tag issues -o issues.mcp.kdl
  mcp-beaver import openapi petstore.yaml --writes --exclude "DELETE *" -o petstore.mcp.kdl
  mcp-beaver import openapi openapi.json --include "GET /orders*" --base-url http://127.0.0.1:9000
`;
