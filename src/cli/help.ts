/** Help texts: each teaches the command with an example that works on specs/. */

export const MAIN_HELP = `mcp-beaver — serve declarative grants to AI agents over MCP and REST

Usage:
  mcp-beaver <command> [options]

Commands:
  check <spec>...        Compile specs; list the tools, or every error with file:line:col
  tools <spec> [--json]  Show the tools exactly as MCP tools/list will serve them

Options:
  -h, --help             Show help (also: mcp-beaver <command> --help)
  -v, --version          Print the version

Examples:
  mcp-beaver check specs/github-issues.mcp.kdl
  mcp-beaver tools specs/orders-db.mcp.kdl --json

The spec language is described in docs/spec-language.md.
`;

export const CHECK_HELP = `Usage: mcp-beaver check <spec.mcp.kdl>... [--quiet]

Compiles each spec without contacting anything: no environment variable, upstream
or database is needed. Prints one line per tool:

  list_issues  GET /repos/{owner}/{repo}/issues  read-only idempotent open-world

and warnings (a grant without describe, an unused restrict) on stderr.
On errors, prints every one of them, one per line, as
  file:line:col: error CODE: grant name: field: what is wrong
and exits 1. Exit 0 means every spec compiled.

Options:
  --quiet    Print nothing on success
  -h, --help Show this help
`;

export const TOOLS_HELP = `Usage: mcp-beaver tools <spec.mcp.kdl> [--json]

Shows the tools the spec serves, in spec order, exactly as MCP tools/list returns
them (name, title, description, inputSchema, outputSchema, annotations).

Without --json: one block per tool with its arguments.
With --json:    the {"tools": [...]} result object, for diffing or other tooling.

Exits 1 (listing every error) when the spec does not compile.
`;
