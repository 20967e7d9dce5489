/** `mcp-beaver import openapi`: its flags and its help. */
import { defineCommand } from '../flags.js';

export const IMPORT_COMMAND = defineCommand({
  name: 'import',
  usage: ['openapi <file>'],
  about: `
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
    reason counted and every tool name that had to be made unique.`,
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
      help: 'Only the operations matching',
      note: 'A pattern is a method and path ("GET /repos/*"), a path ("/users/*") or an operationId ("issues/*"), where * matches any text.',
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
    writes: { type: 'boolean', help: 'Draft POST, PUT, PATCH and DELETE operations too' },
    'base-url': {
      type: 'string',
      value: 'URL',
      help: "The upstream URL, instead of the document's first server",
    },
    'list-tags': {
      type: 'boolean',
      help: "Print the document's tags with their operation counts; no draft",
    },
  },
  more: `
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
  mcp-beaver import openapi openapi.json --include "GET /orders*" --base-url http://127.0.0.1:9000`,
});
