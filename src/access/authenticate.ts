/**
 * Credentials before bodies, and one runtime per request. A route that needs a caller
 * takes the two hooks of `gateCallers`: `onRequest`, which fastify runs before it reads
 * or parses the body, so a stranger gets 401 without costing a parse of up to 4 MiB (and
 * is never told 400 or 413 about a body it had no right to send); and `preHandler`,
 * which after the body re-checks the credential if a reload swapped the runtime
 * meanwhile. The handler then reads the runtime and the caller off the request, with no
 * prologue of its own.
 */
import type {
  FastifyInstance,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import type { Caller } from '../engine/caller.js';
import type { AccessControl, CallerResult } from './access-control.js';
import { RefusedRequest } from './refused-request.js';

export type Refusal = Extract<CallerResult, { ok: false }>;

/** What a gated route needs of the runtime: the access control that resolves callers. */
export interface GatedRuntime {
  readonly access: AccessControl;
}

/** The runtime that serves this request, and the caller its access control accepted. */
export interface Served<R extends GatedRuntime> {
  readonly runtime: R;
  readonly caller: Caller;
}

export interface GateHooks {
  readonly onRequest: onRequestHookHandler;
  readonly preHandler: preHandlerHookHandler;
}

export interface CallerGate<R extends GatedRuntime> {
  /** Route options: spread into the options of every route that needs a caller. */
  readonly hooks: GateHooks;
  /**
   * The same, for the APIs of the gateway's own pages (approvals, confirmations): the
   * browser's session cookie is a credential there too (`AccessControl.resolvePage`).
   * Every other route takes a header only, so a signed-in browser is never an ambient
   * credential for calling tools.
   */
  readonly pageHooks: GateHooks;
  /** What the hooks attached; only for a route that has them. */
  served(req: FastifyRequest): Served<R>;
}

declare module 'fastify' {
  interface FastifyRequest {
    beaverServed: Served<GatedRuntime> | null;
    /**
     * `performance.now()` when the first hook saw the request (0 before): where its
     * duration counts from, a request refused at the edge included.
     */
    beaverStarted: number;
  }
}

/** A request that says it carries a body: content-length over zero, or chunked. */
function announcesBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * The caller gate of a projection, declared in its plugin's encapsulation context.
 * `current` is read once per hook: the runtime serving now. Callback form, settled at
 * once when no token needs verifying: an async hook cost a promise and a microtask turn
 * on every request. A refusal is raised as a `RefusedRequest`, framed by the error
 * handler of the route's plugin.
 */
export function gateCallers<R extends GatedRuntime>(
  scope: FastifyInstance,
  current: () => R,
): CallerGate<R> {
  scope.decorateRequest('beaverServed', null);
  scope.decorateRequest('beaverStarted', 0);

  type Resolver = (
    access: AccessControl,
    req: FastifyRequest,
  ) => ReturnType<AccessControl['resolve']>;

  function authenticate(
    resolve: Resolver,
    req: FastifyRequest,
    runtime: R,
    done: (err?: Error) => void,
  ): void {
    const settle = (who: CallerResult): void => {
      if (!who.ok) return done(new RefusedRequest(who.error, who.challenge));
      req.beaverServed = { runtime, caller: who.caller };
      done();
    };
    const who = resolve(runtime.access, req);
    if (who instanceof Promise) who.then(settle, done);
    else settle(who);
  }

  const hooksOf = (resolve: Resolver): GateHooks => ({
    onRequest: function authenticateFirst(req, reply, done) {
      // The one clock reading of a request: its handler and its refusal both count from it.
      req.beaverStarted = performance.now();
      if (!announcesBody(req)) return authenticate(resolve, req, current(), done);
      authenticate(resolve, req, current(), (err) => {
        // The body is never read: close the connection after the answer rather than
        // have node drain an upload the caller had no right to send.
        if (err instanceof RefusedRequest) void reply.header('connection', 'close');
        done(err);
      });
    },
    // After a reload in between (the body took its time) the credential is checked
    // again against the spec serving the call, so a key the new spec dropped is not
    // honoured, and the call runs on that one runtime whatever reloads come later.
    preHandler: function recheckAfterReload(req, _reply, done) {
      const runtime = current();
      if (req.beaverServed?.runtime === runtime) return done();
      authenticate(resolve, req, runtime, done);
    },
  });

  return {
    // Built once per projection: a request only runs them.
    hooks: hooksOf((access, req) => access.resolve(req)),
    pageHooks: hooksOf((access, req) => access.resolvePage(req)),
    served: (req) => req.beaverServed as Served<R>,
  };
}
