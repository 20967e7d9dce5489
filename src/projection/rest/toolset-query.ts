/**
 * The `?toolset=<name>` of GET /api and GET /openapi.json (spec-language.md,
 * "Toolsets"): which toolset a listing is of. The engine knows the toolsets
 * (`gateway.toolset`); this only reads the query. A name no toolset has, an empty one and
 * a repeated parameter are all 404 NOT_FOUND: a listing is of one toolset or of the whole
 * spec, never a guess. The refusal lists the spec's toolsets: the caller is authenticated
 * by then (the gate runs first), and the names are what it needs to ask again.
 */
import type { FastifyRequest } from 'fastify';
import { engineError, type EngineError } from '../../engine/error-catalogue.js';
import type { Gateway } from '../../engine/gateway.js';
import { clipped, MAX_DETAILS } from '../../engine/refusal-text.js';
import type { Toolset } from '../../engine/view/toolsets.js';

export const TOOLSET_PARAMETER = 'toolset';

/** Values of a repeated parameter quoted in the refusal; the rest are counted. */
const QUOTED_VALUES = 3;

export type ToolsetQuery =
  | { readonly ok: true; readonly toolset: Toolset | undefined }
  | { readonly ok: false; readonly error: EngineError };

/** The toolset the request names, none when it names none, or the refusal. */
export function toolsetOf(req: FastifyRequest, gateway: Gateway): ToolsetQuery {
  // fastify's parser gives a string, or an array of them for a repeated parameter.
  const raw: unknown = (req.query as Record<string, unknown> | null | undefined)?.[
    TOOLSET_PARAMETER
  ];
  if (raw === undefined) return { ok: true, toolset: undefined };
  const found = typeof raw === 'string' && raw !== '' ? gateway.toolset(raw) : undefined;
  if (found) return { ok: true, toolset: found };
  return { ok: false, error: engineError('NOT_FOUND', refusal(raw, gateway)) };
}

function refusal(raw: unknown, gateway: Gateway): string {
  const values = Array.isArray(raw) ? raw.map(String) : [String(raw)];
  const quoted = values
    .slice(0, QUOTED_VALUES)
    .map((v) => JSON.stringify(clipped(v)))
    .join(', ');
  const more = values.length > QUOTED_VALUES ? ` and ${values.length - QUOTED_VALUES} more` : '';
  const lead =
    values.length > 1
      ? `the ${TOOLSET_PARAMETER} parameter is given ${values.length} times (${quoted}${more}): name one toolset`
      : `no toolset named ${quoted}`;
  return `${lead}; ${known(gateway)}`;
}

/** The spec's toolsets as the refusal lists them: the first MAX_DETAILS named, the rest counted. */
function known(gateway: Gateway): string {
  const names = [...gateway.toolsets.keys()];
  if (names.length === 0) return 'this spec has no toolsets';
  const shown = names.slice(0, MAX_DETAILS).join(', ');
  const more = names.length - MAX_DETAILS;
  return `the spec's toolsets are ${shown}${more > 0 ? ` and ${more} more` : ''}`;
}
