/**
 * The error answers of an OpenAPI operation: the catalogue codes it can produce, grouped
 * by their status, each status one response whose schema narrows the shared Error
 * component to that status's codes. Tools, resource reads and prompt gets share it.
 */
import { STATUS_CODES } from 'node:http';
import {
  ERROR_CATALOGUE,
  type CatalogueEntry,
  type ErrorCode,
} from '../../engine/error-catalogue.js';
import type { ToolDescriptor } from '../../compiler/descriptor.js';

type Json = Record<string, unknown>;

export const ERROR_REF = '#/components/schemas/Error';

/** Every catalogue code, in catalogue order (the order the documents list them in). */
export const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function entry(code: ErrorCode): CatalogueEntry {
  return ERROR_CATALOGUE[code];
}

type RateLimit = ToolDescriptor['limits']['rateLimit'];

/** `{ "<status>": response }` for these codes, statuses ascending. */
export function errorResponses(codes: readonly ErrorCode[], limit?: RateLimit): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = entry(code).status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Json = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b))
    out[status] = errorResponse(status, byStatus.get(status)!, limit);
  return out;
}

function errorResponse(status: number, codes: readonly ErrorCode[], limit: RateLimit): Json {
  const lines = codes.map((c) => `- \`${c}\`: ${entry(c).summary}`);
  if (status === 429 && limit)
    lines.push(`\nThis grant allows ${limit.count} calls per ${windowText(limit.windowMs)}.`);
  const headers: Json = {};
  if (status === 401)
    headers['WWW-Authenticate'] = {
      description: 'Bearer challenge naming the protected resource metadata (RFC 9728).',
      schema: { type: 'string' },
    };
  if (status === 429 || status === 503)
    headers['Retry-After'] = {
      description: 'Seconds to wait before retrying, when the gateway knows.',
      schema: { type: 'integer', minimum: 0 },
    };
  return {
    description: `${STATUS_CODES[status] ?? 'Error'}:\n\n${lines.join('\n')}`,
    ...(Object.keys(headers).length > 0 && { headers }),
    content: {
      'application/json': {
        schema: {
          $ref: ERROR_REF,
          type: 'object',
          properties: {
            error: { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } },
          },
        },
      },
    },
  };
}

function windowText(ms: number): string {
  if (ms === 1_000) return 'second';
  if (ms === 60_000) return 'minute';
  if (ms === 3_600_000) return 'hour';
  return `${ms / 1000} seconds`;
}
