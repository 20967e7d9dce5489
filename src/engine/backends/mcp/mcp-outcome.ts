/**
 * An upstream's answer to `tools/call` as a grant's outcome (spec-language.md, "Upstream
 * MCP servers"): a result as the envelope's input, searched for the gateway's secrets,
 * and each failure kind of the connection layer as its catalogue code.
 */
import type { McpBackend } from '../../../compiler/descriptor.js';
import { engineError, type EngineError } from '../../error-catalogue.js';
import { MAX_RESULT_DEPTH, nestsDeeperThan } from '../../../json/json-depth.js';
import type { Redactor } from '../../redact.js';
import type { BackendOutcome } from '../kind.js';
import type { UpstreamFailure } from '../../../mcp-upstream/upstream-outcome.js';

/**
 * The mapped value (structured content, parsed JSON, text) with its JSON, redacted. A
 * shaped grant passes on only what pick/omit can shape: a text result is withheld.
 */
export function mapUpstreamValue(
  value: unknown,
  redact: Redactor,
  shaped: boolean,
): BackendOutcome {
  if (shaped && typeof value === 'string')
    return {
      ok: true,
      value: {
        result: null,
        withheld:
          "the upstream tool answered text that is not JSON, and only what the grant's pick/omit can shape is passed on",
      },
    };
  let json: string;
  try {
    json = JSON.stringify(value ?? null);
  } catch {
    return { ok: false, error: protocol('the upstream result could not be encoded as JSON') };
  }
  if (nestsDeeperThan(json, MAX_RESULT_DEPTH))
    return {
      ok: false,
      error: protocol(`the upstream result nests deeper than ${MAX_RESULT_DEPTH} levels`),
    };
  let result = value ?? null;
  if (redact.found(json)) {
    result = redact.value(result);
    json = JSON.stringify(result);
    if (redact.found(json))
      return {
        ok: false,
        error: protocol(
          'the upstream result holds a credential of the gateway across its structure; it is withheld',
        ),
      };
  }
  return { ok: true, value: { result, resultJson: json } };
}

export function mapUpstreamFailure(
  e: UpstreamFailure,
  server: string,
  b: McpBackend,
  shaped: boolean,
): EngineError {
  const at = `mcp-server ${server}, tool ${JSON.stringify(b.tool)}`;
  switch (e.kind) {
    case 'tool-error':
      // A shaped grant's error quotes nothing of the upstream: it may hold omitted fields.
      return engineError(
        'UPSTREAM_TOOL_ERROR',
        shaped ? `${at} answered with an error` : `${at} answered with an error: ${e.message}`,
      );
    case 'rpc-error':
      return engineError(
        'UPSTREAM_ERROR',
        `${at} answered with JSON-RPC error ${e.code}${shaped || e.message === '' ? '' : `: ${e.message}`}`,
      );
    case 'timeout':
      return engineError(
        'UPSTREAM_TIMEOUT',
        `${at}: no answer within ${b.timeoutMs} ms (${e.message})`,
      );
    case 'unavailable':
      return engineError('UPSTREAM_UNAVAILABLE', `${at}: ${e.message}`, { retryAfter: 1 });
    case 'protocol':
      return engineError('UPSTREAM_PROTOCOL', `${at}: ${e.message}`);
  }
}

function protocol(message: string): EngineError {
  return engineError('UPSTREAM_PROTOCOL', message);
}
