/**
 * Credentials before bodies: a route that needs a caller resolves it in an `onRequest`
 * hook, which fastify runs before it reads or parses the body. A stranger gets 401
 * without costing a parse of up to 4 MiB (and is never told 400 or 413 about a body it
 * had no right to send). The caller found is kept on the request for the handler.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Caller } from '../engine/caller.js';
import type { AccessControl, CallerResult } from './access-control.js';

export type Refusal = Extract<CallerResult, { ok: false }>;

/** How a surface answers a refused credential (REST: the catalogue shape; MCP: JSON-RPC). */
export type RefuseCaller = (reply: FastifyReply, refusal: Refusal) => FastifyReply;

interface Authenticated {
  /** The access control that accepted the caller: a reload meanwhile brings another one. */
  readonly access: AccessControl;
  readonly caller: Caller;
}

declare module 'fastify' {
  interface FastifyRequest {
    beaverCaller: Authenticated | null;
  }
}

/** The slot every request carries (null until a route's hook authenticates it). */
export function declareCallerSlot(app: FastifyInstance): void {
  app.decorateRequest('beaverCaller', null);
}

/** A request that says it carries a body: content-length over zero, or chunked. */
function announcesBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * The `onRequest` hook of a route that needs a caller. `current` is read once here, as
 * the handler reads it: the access control of the runtime serving now. Callback form,
 * settled at once when no token needs verifying: an async hook cost a promise and a
 * microtask turn on every request. A refusal answers without calling `done`.
 */
export function authenticateFirst(
  current: () => { readonly access: AccessControl },
  refuse: RefuseCaller,
): onRequestHookHandler {
  return function authenticate(req, reply, done) {
    const { access } = current();
    const settle = (who: CallerResult): void => {
      if (who.ok) {
        req.beaverCaller = { access, caller: who.caller };
        done();
        return;
      }
      // The body is never read: close the connection after the answer rather than have
      // node drain an upload the caller had no right to send.
      if (announcesBody(req)) void reply.header('connection', 'close');
      refuse(reply, who);
    };
    const who = access.resolve(req);
    if (who instanceof Promise) who.then(settle, done);
    else settle(who);
  };
}

/**
 * The caller the hook found, when the handler serves with the same access control; after
 * a reload in between (the body took its time) the credential is checked again against
 * the spec serving the call, so a key the new spec dropped is not honoured.
 */
export function authenticatedCaller(
  req: FastifyRequest,
  access: AccessControl,
): CallerResult | Promise<CallerResult> {
  const found = req.beaverCaller;
  if (found && found.access === access) return { ok: true, caller: found.caller };
  return access.resolve(req);
}
