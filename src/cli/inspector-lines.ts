/**
 * The demo banner's lines for an MCP client on the command line: the MCP Inspector's CLI,
 * pinned, where this Node can run it. Its 0.16 and later need Node >= 22 (2.x: 22.19), so
 * on Node 20 `npx @modelcontextprotocol/inspector` resolves 0.15, which has no `--header`
 * and takes it for arguments of the server ("Arguments cannot be passed to a URL-based
 * MCP server"): there the banner says which Node it needs, and gives the same two
 * requests with this package's own client, which runs on every Node it supports.
 */

/** The Inspector `npm run check:inspector` runs (scripts/inspector-strict.sh installs it). */
export const INSPECTOR_VERSION = '2.12.0';
/** Its `engines`: the oldest Node that runs it. */
export const INSPECTOR_NODE = '22.19.0';

/** Whether `version` (as process.versions.node: 20.19.4) is at least `least`. */
export function nodeAtLeast(version: string, least: string): boolean {
  const have = version.split('.').map(Number);
  const need = least.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i]!;
    if (a !== b) return a > b;
  }
  return true;
}

/** The lines (indented for the banner) that list the tools and get the demo's prompt. */
export function inspectorLines(
  mcpUrl: string,
  keyName: string,
  key: string,
  nodeVersion: string,
): string[] {
  const inspector = (method: string): string =>
    `    npx @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --cli ${mcpUrl} --transport http --header "Authorization: Bearer ${key}" --method ${method}`;
  const lines = [
    inspector('tools/list'),
    inspector('prompts/get --prompt-name triage-ticket --prompt-args id=1'),
  ];
  if (nodeAtLeast(nodeVersion, INSPECTOR_NODE))
    return [
      '  Or from an MCP client (MCP Inspector: transport "Streamable HTTP", URL above), e.g.',
      ...lines,
    ];
  const own = `${keyName}=${key} npx mcp-beaver`;
  return [
    `  Or from an MCP client. The MCP Inspector's CLI needs Node >= ${INSPECTOR_NODE.replace(/\.0$/, '')} (this is Node ${nodeVersion},`,
    '  where npx would fetch Inspector 0.15, which cannot send the key); with such a Node:',
    ...lines,
    "  On this Node, the same with mcp-beaver's own client:",
    `    ${own} tools ${mcpUrl} --bearer-env ${keyName}`,
    `    ${own} prompt ${mcpUrl} triage-ticket id=1 --bearer-env ${keyName}`,
  ];
}
