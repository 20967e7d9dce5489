/** `mcp-beaver import openapi` and `import mcp`: their flags and their help. */
import { defineCommand } from '../flags.js';

export const IMPORT_COMMAND = defineCommand({
  name: 'import',
  usage: [
    'openapi <file>',
    {
      operands: 'mcp <url> [-o FILE] [--writes] [options]',
      flags: [],
    },
    {
      // Its flags come before `--`: every word after it is the command's.
      operands: 'mcp [-o FILE] [--writes] [options] -- <command> [<arg>...]',
      flags: [],
    },
  ],
  about: `
Drafts a spec from an OpenAPI 3.0 or 3.1 or Swagger 2.0 document (JSON or YAML;
$refs to other files are followed inside the document's folder, or --ref-root's).
The draft is guarded from the start: read-only unless you ask for writes, typed
arguments with the document's bounds, enums and formats, nothing undeclared
forwarded, the upstream credential read from an environment variable. Review it,
tighten it, then serve it.

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
  - --upstream NAME writes the base-url and auth as upstream "NAME" base-url="..."
    { auth ... } and adds upstream "NAME" to every grant, so drafts of several
    documents can live in one spec, each API with its own credential.
  - --toolsets=tag adds, after the grants, one toolset per tag of the imported
    operations, each served at /mcp/<name> with only its tools: tag "Pull Requests"
    becomes toolset "pull-requests" (lower case, accents dropped, each run of other
    characters one -). An operation with several tags is in each, an untagged one in
    none; its describe is the first sentence of the tag's description. The
    toolsets are sorted by name; the summary names the largest.

import mcp drafts a spec of an MCP server's tools: it connects (Streamable HTTP to
<url>, or the command started as the gateway starts it: no shell, PATH, HOME and
LANG only), lists the tools and writes the mcp-server node and one grant per tool:

  - can <verb> <resource> { describe; tool "<server>" "<tool>"; args { ... } }, the
    description copied, the arguments typed from the tool's inputSchema as import
    openapi types a body (bounds, enums, lengths, safe patterns, nested objects).
  - Only tools marked readOnlyHint: true unless --writes; the verb is the tool
    name's first word when it is one of ours and claims no less than the hints
    (read_text_file becomes read_text_file, echo becomes get_echo), else it follows
    the hints (destructive and idempotent).
  - A tool whose input no grant can declare (a free-form object, a required
    argument of several types) is skipped with its reason; an optional argument
    that cannot be declared is left out with a // comment.
  - It takes --include, --exclude (tool names), --protocol, --name and --timeout
    too; --tag, --base-url, --upstream, --list-tags, --toolsets and --ref-root are
    import openapi's.
  - The tools are drafted in the order of their names: the same server gives the
    same bytes. The summary goes to stderr: drafted N grants from M tools (K
    skipped: ...), each skipped tool with its reason.`,
  flags: {
    output: {
      type: 'string',
      short: 'o',
      value: 'FILE',
      inUsage: true,
      help: 'Write the draft to this file, not to stdout',
    },
    include: {
      type: 'string',
      multiple: true,
      value: 'PATTERN',
      help: 'Only the operations (or tools) matching',
      note: 'A pattern is a method and path ("GET /repos/*"), a path ("/users/*") or an operationId ("issues/*"), where * matches any text; for import mcp, a tool name ("read_*").',
    },
    tag: {
      type: 'string',
      multiple: true,
      value: 'TAG',
      help: 'Only the operations with this tag',
      note: '--tag and --include together select what either one selects.',
    },
    exclude: {
      type: 'string',
      multiple: true,
      value: 'PATTERN',
      help: 'Leave out the operations matching',
      note: 'It wins over --include and --tag.',
    },
    writes: {
      type: 'boolean',
      help: 'Draft POST, PUT, PATCH and DELETE operations too (import mcp: tools that write)',
    },
    'base-url': {
      type: 'string',
      value: 'URL',
      help: "The upstream URL, instead of the document's first server",
    },
    upstream: {
      type: 'string',
      value: 'NAME',
      help: 'Write the upstream as upstream "NAME" and have every grant name it',
      note: 'The draft declares upstream "NAME" base-url="..." { auth ... } in place of the top-level base-url and auth, and each grant says upstream "NAME": drafts of several documents, each imported with its own name, can then be pasted into one spec. NAME matches ^[a-z][a-z0-9-]{0,31}$.',
    },
    toolsets: {
      type: 'string',
      value: 'tag',
      help: 'Also write one toolset per tag, served at /mcp/<name> (tag is the one value)',
      note: 'A tag with no letter or digit becomes tag-1, tag-2...; one that starts with a digit gets tag- in front; tags that give one name (Pull Requests, pull-requests) are one toolset. The summary names each, and the largest toolset.',
    },
    'ref-root': {
      type: 'string',
      value: 'DIR',
      help: "The folder $refs may reach (default: the document's own)",
      note: 'For a document that $refs a shared file above its folder (../common/schemas.yaml): DIR must hold the document. Inside it the rules stay: links resolved, nothing above DIR, no absolute path outside it, no URL.',
    },
    'list-tags': {
      type: 'boolean',
      help: "Print the document's tags with their operation counts; no draft",
    },
    protocol: {
      type: 'string',
      value: 'auto|2026-07-28|2025-11-25',
      default: 'auto',
      help: 'import mcp: the protocol to speak, written to the draft when not auto',
      note: 'auto tries server/discover, then initialize.',
    },
    name: {
      type: 'string',
      value: 'NAME',
      help: "import mcp: the mcp-server's name, instead of one from the URL's host or the command",
    },
    timeout: {
      type: 'string',
      value: 'DURATION',
      default: '30s',
      help: 'import mcp: how long the server may take to answer each request',
    },
  },
  more: `
Exit codes: 0 the draft was written; 1 the document cannot be imported (no such
file, not JSON or YAML, not OpenAPI, a $ref to a file that does not exist), the MCP
server cannot be reached or does not list its tools, or the filters select nothing
(the document's tags, or the server's tools, are named), said in one line; 2 the
command line is wrong.

Next steps:
  mcp-beaver check draft.mcp.kdl           every draft passes; read the // comments
  mcp-beaver tools draft.mcp.kdl           see the tools as an agent will
Then tighten it (docs/spec-language.md, "Importing an OpenAPI document"): delete the
grants you do not need, add restrict allowlists, scope and rate-limit.

Examples:
  mcp-beaver import openapi api.github.com.json --tag issues -o issues.mcp.kdl
  mcp-beaver import openapi api.github.com.json --toolsets=tag -o github.mcp.kdl
  mcp-beaver import openapi services/orders/openapi.yaml --ref-root services -o orders.mcp.kdl
  mcp-beaver import openapi petstore.yaml --writes --exclude "DELETE *" -o petstore.mcp.kdl
  mcp-beaver import openapi openapi.json --include "GET /orders*" --base-url http://127.0.0.1:9000
  mcp-beaver import mcp https://tracker.example.com/mcp -o tracker.mcp.kdl
  mcp-beaver import mcp --writes -o memory.mcp.kdl -- npx -y @modelcontextprotocol/server-memory
  mcp-beaver import mcp --include "read_*" -- npx -y @modelcontextprotocol/server-filesystem /srv/docs`,
});
