/**
 * `mcp-beaver tools <spec>`: the tool list as tools/list will serve it.
 * `mcp-beaver tools <url>`: the tool list a running MCP server serves.
 */
import { isRemoteTarget, remoteOptionsOr, type RemoteArgValues } from '../client/options.js';
import type { CompiledSpec } from '../compiler/descriptor.js';
import { prepareToolsets } from '../engine/view/toolsets.js';
import { toolList } from '../projection/mcp/tool-definition.js';
import { formatToolBlocks } from '../client/print-tools.js';
import { escapeTerminalControls } from '../client/terminal-text.js';
import { TOOLS_COMMAND } from './commands/tools-command.js';
import { grantRoute } from './grant-route.js';
import { REMOTE_FLAGS } from './commands/remote-flags.js';
import { parseOperands } from './operands.js';
import { commandMessages, loadSpecOrReport } from './output.js';
import { describeResourcesAndPrompts, resourcePromptLists } from './spec-resources-prompts.js';

const { usage, badValue } = commandMessages(TOOLS_COMMAND);

export async function runTools(argv: string[]): Promise<number> {
  const parsed = parseOperands(TOOLS_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, given, operands } = parsed;
  const file = operands[0];
  if (isRemoteTarget(file)) {
    if (values.toolset !== undefined)
      return usage(
        '--toolset applies to a spec; for a server, give the toolset URL (<gateway>/mcp/<toolset>)',
      );
    return remoteTools(file, values, values.json === true);
  }
  const remoteOnly = Object.keys(REMOTE_FLAGS).filter((k) => k in given);
  if (remoteOnly.length > 0) return usage(`--${remoteOnly[0]} applies to a server URL only`);
  const loaded = await loadSpecOrReport(file);
  if (typeof loaded === 'number') return loaded;
  const compiled = values.toolset === undefined ? loaded : membersOf(loaded, values.toolset);
  if (compiled === undefined) {
    const names = loaded.toolsets.map((t) => t.name);
    process.stderr.write(
      `mcp-beaver tools: ${file} has no toolset ${JSON.stringify(values.toolset)} (${names.length === 0 ? 'it has no toolsets' : `its toolsets: ${names.join(', ')}`})\n`,
    );
    return 1;
  }
  const list = toolList(compiled.tools);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ ...list, ...resourcePromptLists(compiled) }, null, 2)}\n`,
    );
    return 0;
  }
  // Each block says where its grant's call goes and as whom, after its description.
  const blocks = list.tools.map((tool, i) => {
    const [title, ...rest] = formatToolBlocks([tool]).split('\n');
    const described = tool.description !== undefined ? 1 : 0;
    const route = `  ${grantRoute(compiled.tools[i]!, compiled)}`;
    return [title, ...rest.slice(0, described), route, ...rest.slice(described)].join('\n');
  });
  process.stdout.write(`${blocks.join('')}${describeResourcesAndPrompts(compiled)}`);
  return 0;
}

async function remoteTools(
  target: string,
  values: RemoteArgValues,
  json: boolean,
): Promise<number> {
  const options = remoteOptionsOr(target, values, badValue);
  if (typeof options === 'number') return options;
  // Loaded here, so that the spec commands do not load the MCP client.
  const [
    { withConnection },
    { clientErrorLine },
    { formatToolList },
    { formatResourcesAndPrompts },
  ] = await Promise.all([
    import('../client/connect.js'),
    import('../client/errors.js'),
    import('../client/print.js'),
    import('../client/print-resources-prompts.js'),
  ]);
  let list;
  try {
    list = await withConnection(options, async (c) => {
      const tools = await c.client.listTools(undefined, c.request);
      // Only the lists the server advertises: asking for others is an error by the spec.
      const has = c.client.getServerCapabilities() ?? {};
      const [resources, templates, prompts] = await Promise.all([
        has.resources ? c.client.listResources(undefined, c.request) : undefined,
        has.resources ? c.client.listResourceTemplates(undefined, c.request) : undefined,
        has.prompts ? c.client.listPrompts(undefined, c.request) : undefined,
      ]);
      return {
        ...tools,
        ...(resources && { resources: resources.resources }),
        ...(templates && { resourceTemplates: templates.resourceTemplates }),
        ...(prompts && { prompts: prompts.prompts }),
      };
    });
  } catch (err) {
    process.stderr.write(`${clientErrorLine(options.url, err, options.timeoutMs)}\n`);
    return 2;
  }
  // What the server wrote reaches the terminal with its control characters made visible.
  process.stdout.write(
    escapeTerminalControls(
      json
        ? `${JSON.stringify(list, null, 2)}\n`
        : `${formatToolList(list.tools)}${formatResourcesAndPrompts(list)}`,
    ),
  );
  return 0;
}

/**
 * The spec as `/mcp/<toolset>` serves it: the toolset's members only, in spec order (the
 * engine's membership, engine/view/toolsets.ts); undefined for a name the spec has none of.
 */
function membersOf(spec: CompiledSpec, name: string): CompiledSpec | undefined {
  const toolset = prepareToolsets(spec).get(name);
  if (!toolset) return undefined;
  return {
    ...spec,
    tools: toolset.tools,
    resources: toolset.resources,
    prompts: toolset.prompts,
  };
}
