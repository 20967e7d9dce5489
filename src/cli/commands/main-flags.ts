/** `mcp-beaver` alone: the commands, and the two flags that need none. */
import type { FlagTable } from '../flags.js';
import { renderOptions } from '../render-help.js';

/** Read only as the first word (`mcp-beaver --version`); a command's own -h is its help. */
export const MAIN_FLAGS = {
  help: { type: 'boolean', short: 'h', help: 'Show help (also: mcp-beaver <command> --help)' },
  version: { type: 'boolean', short: 'v', help: 'Print the version' },
} as const satisfies FlagTable;

/** The column of the command list below, which the options line up with. */
const COLUMN = 25;

/**
 * The main help of a build: the single executable (scripts/build-binary.mjs) has no
 * `demo` and no `import` of either kind (the build stubs run-import.ts whole, `import
 * mcp` with it), so its help does not offer them, and says where they are.
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
    ...onlyInPackage(
      "  import mcp <url>       Draft grants of an MCP server's tools (or: import mcp -- <command>)",
    ),
    ...(build.binary
      ? [
          '  (demo, import openapi and import mcp are in the npm package,',
          '   not in this single executable)',
        ]
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
    '  approvals <url> [approve|decline <id>]',
    '                         List the calls waiting for approval on a gateway, or decide one',
    '  connections <url> [disconnect <provider>]',
    '                         List your connected accounts on a gateway, or remove one',
    '',
    'Options:',
    renderOptions(MAIN_FLAGS, COLUMN),
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
