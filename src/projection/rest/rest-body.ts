/**
 * How a REST body is read: JSON only (any `application/*+json` too), with the nesting
 * limit, keeping the text of numbers a double would change (number-text.ts; duplicate
 * keys: last wins, and the engine forwards only the re-serialized validated object).
 * A body is the ExactJson `parseJson` returns (value and texts), or undefined when empty;
 * one that is not JSON is the catalogue's INVALID_JSON, raised to the error handler.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_INPUT_DEPTH, nestsDeeperThan } from '../../json/json-depth.js';
import { parseJson } from '../../json/number-text.js';

const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json\s*(;.*)?$/i;

/** Installs the JSON parser as the only one of `scope` (fastify's own are removed). */
export function readRestBodies(scope: FastifyInstance, bodyLimit: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'string', bodyLimit }, parseRestBody);
}

function parseRestBody(
  _req: FastifyRequest,
  body: string | Buffer,
  done: (err: Error | null, body?: unknown) => void,
): void {
  const text = String(body);
  if (text.trim() === '') return done(null, undefined);
  if (nestsDeeperThan(text, MAX_INPUT_DEPTH))
    return done(invalidJson(`request body nests deeper than ${MAX_INPUT_DEPTH} levels`), undefined);
  try {
    done(null, parseJson(text));
  } catch (err) {
    done(invalidJson(`request body is not valid JSON: ${(err as Error).message}`), undefined);
  }
}

function invalidJson(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400, code: 'INVALID_JSON' });
}
