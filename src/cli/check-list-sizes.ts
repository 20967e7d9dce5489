/**
 * `check`'s list sizes (spec-language.md, "How large a list is: `mcp-beaver check`"): for
 * `/mcp` and each toolset, the tool count and the 2025-11-25 tools/list result a caller
 * holding every scope gets, in bytes and estimated tokens, and the warnings above 128
 * tools (LIST_TOOL_COUNT) and above `limits list-tokens` (LIST_TOKENS).
 */
import type { CompiledSpec, ToolDescriptor } from '../compiler/descriptor.js';
import type { CheckWarningCode, Diagnostic } from '../compiler/diagnostics.js';
import { prepareToolsets } from '../engine/view/toolsets.js';
import { toolList } from '../projection/mcp/tool-definition.js';

/** VS Code, JetBrains and Copilot CLI refuse a server that lists more tools than this. */
const CLIENT_TOOL_LIMIT = 128;

export interface ListSize {
  /** `undefined` for the whole spec (`/mcp`). */
  readonly toolset?: string;
  readonly tools: number;
  readonly bytes: number;
  readonly tokens: number;
}

/** A rough count that holds for JSON: about four bytes a token. */
const estimatedTokens = (bytes: number): number => Math.ceil(bytes / 4);

function sizeOf(tools: readonly ToolDescriptor[], toolset?: string): ListSize {
  // The legacy tools/list result is exactly this text: the payloads serialize
  // toolList's items into `{"tools":[...]}` (the modern one appends cache hints).
  const bytes = Buffer.byteLength(JSON.stringify(toolList(tools)));
  return {
    ...(toolset !== undefined && { toolset }),
    tools: tools.length,
    bytes,
    tokens: estimatedTokens(bytes),
  };
}

/** The whole spec first, then each toolset in spec order; members as the engine decides. */
export function listSizes(spec: CompiledSpec): ListSize[] {
  const toolsets = prepareToolsets(spec);
  return [
    sizeOf(spec.tools),
    ...spec.toolsets.map((d) => sizeOf(toolsets.get(d.name)!.tools, d.name)),
  ];
}

const label = (s: ListSize): string =>
  s.toolset === undefined ? 'tools/list  (all)' : `toolset ${s.toolset}`;

/** `  toolset issues   52 tools    91320 bytes   ~22830 tokens`, the columns aligned. */
export function listSizeLines(sizes: readonly ListSize[]): string[] {
  const width = (f: (s: ListSize) => string): number =>
    Math.max(0, ...sizes.map((s) => f(s).length));
  const labels = width(label);
  const tools = width((s) => String(s.tools));
  const bytes = width((s) => String(s.bytes));
  const tokens = width((s) => `~${s.tokens}`);
  return sizes.map(
    (s) =>
      `  ${label(s).padEnd(labels)}  ${String(s.tools).padStart(tools)} tool${s.tools === 1 ? ' ' : 's'}` +
      `  ${String(s.bytes).padStart(bytes)} bytes  ${`~${s.tokens}`.padStart(tokens)} tokens`,
  );
}

/**
 * The warnings, printed as every diagnostic is (`<file>:<line>:<col>: warning <CODE>: ...`),
 * at the toolset's node or, for `/mcp`, the file's start. Exit 0: the spec serves as it is.
 */
export function listSizeWarnings(
  file: string,
  spec: CompiledSpec,
  sizes: readonly ListSize[],
): Diagnostic[] {
  const hasToolsets = spec.toolsets.length > 0;
  const found: Diagnostic[] = [];
  const warn = (s: ListSize, code: CheckWarningCode, message: string): void => {
    const at = spec.toolsets.find((d) => d.name === s.toolset)?.source ?? { line: 1, column: 1 };
    found.push({ severity: 'warning', code, message, file, line: at.line, column: at.column });
  };
  for (const s of sizes) {
    const where = s.toolset === undefined ? '/mcp' : `toolset ${s.toolset}`;
    // A whole spec too large for one list is what toolsets are for.
    const advice = s.toolset === undefined && !hasToolsets ? '; serve toolsets' : '';
    if (s.tools > CLIENT_TOOL_LIMIT) {
      warn(
        s,
        'LIST_TOOL_COUNT',
        `${where} lists ${s.tools} tools: some clients refuse more than ${CLIENT_TOOL_LIMIT} tools (VS Code, JetBrains, Copilot CLI)${advice}`,
      );
    }
    if (s.tokens > spec.listTokens) {
      warn(
        s,
        'LIST_TOKENS',
        `${where}: tools/list is ~${s.tokens} tokens (${s.bytes} bytes), above limits list-tokens=${spec.listTokens}: a client spends them before the first question${advice}`,
      );
    }
  }
  return found;
}
