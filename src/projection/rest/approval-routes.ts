/**
 * `GET /api/approvals` and `POST /api/approvals/<id>` (docs/spec-language.md,
 * "Confirmation and approval"): the pending approvals of the scopes the caller holds,
 * and a decision on one. The store decides who may decide (the scope, never one's own
 * call); these routes only translate. A browser cannot be made to decide for its user:
 * the credential travels in a header a page cannot make another site's browser send,
 * or, with `sign-in`, in the session cookie, which decides only with the gateway's own
 * Origin (sign-in/page-caller.ts); the body must be JSON (a cross-site form cannot send
 * it without a preflight), and the request guard refuses foreign Origins.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CallerGate, GatedRuntime } from '../../access/authenticate.js';
import { challengeOf } from '../../access/challenge.js';
import type { Approval, DecideRefusal } from '../../engine/consent/approvals.js';
import { engineError, type ErrorCode } from '../../engine/error-catalogue.js';
import { approvalPageUrl } from '../approval-url.js';
import { decisionIn } from './decision-body.js';
import { sendRestError } from './rest-error.js';
import type { RestRuntime } from './rest-runtime.js';

export const APPROVALS_API_PATH = '/api/approvals';

const REFUSAL_CODES: Readonly<Record<DecideRefusal, ErrorCode>> = {
  unknown: 'NOT_FOUND',
  'missing-scope': 'INSUFFICIENT_SCOPE',
  'own-request': 'APPROVAL_OWN_CALL',
  // A confirmation's refusal: never said here, where only approvals are decided.
  'other-caller': 'CONFIRMATION_OTHER_CALLER',
  expired: 'APPROVAL_EXPIRED',
  'already-decided': 'APPROVAL_DECIDED',
};

/** What a store that does not answer (Redis down) is: refused, never an INTERNAL error. */
const storeDown = (): ReturnType<typeof engineError> =>
  engineError(
    'CONSENT_UNAVAILABLE',
    'the store of approvals does not answer; nothing was listed or decided. Retry shortly',
    { retryAfter: 1 },
  );

/** One approval as the API and the page show it: never the arguments, only their message. */
function approvalJson(a: Approval, base: string, callerId: string): Record<string, unknown> {
  return {
    id: a.id,
    tool: a.tool,
    message: a.message,
    scope: a.scope,
    status: a.status,
    requested_by: a.requestedBy,
    requested_at: new Date(a.requestedAt).toISOString(),
    expires_at: new Date(a.expiresAt).toISOString(),
    url: approvalPageUrl(base, a.id),
    // The page offers no buttons on the caller's own calls: the store would refuse them.
    own: a.requestedBy === callerId,
    ...(a.decidedBy !== undefined && { decided_by: a.decidedBy }),
  };
}

export function registerApprovalRoutes<R extends RestRuntime & GatedRuntime>(
  scope: FastifyInstance,
  gate: CallerGate<R>,
): void {
  // The pages' APIs: the browser session of a signed-in person is a credential here.
  const hooks = gate.pageHooks;
  const base = (runtime: R, req: FastifyRequest): string => runtime.access.baseUrl(req);

  scope.get(APPROVALS_API_PATH, hooks, async function listApprovals(req, reply) {
    const { runtime, caller } = gate.served(req);
    const store = runtime.gateway.consent?.approvals;
    let pending: readonly Approval[];
    try {
      pending = store ? await store.listPending(caller.scopes) : [];
    } catch {
      return sendRestError(reply, storeDown());
    }
    const at = base(runtime, req);
    return reply
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ approvals: pending.map((a) => approvalJson(a, at, caller.id)) }));
  });

  scope.post<{ Params: { id: string } }>(
    `${APPROVALS_API_PATH}/:id`,
    hooks,
    async function decideApproval(req, reply) {
      const { runtime, caller } = gate.served(req);
      const body = (req.body as { value?: unknown } | undefined)?.value;
      const read = decisionIn(body, ['approve', 'decline']);
      if ('error' in read) return sendRestError(reply, read.error);
      const { decision } = read;
      const consent = runtime.gateway.consent;
      if (!consent) return sendRestError(reply, engineError('NOT_FOUND', 'no such approval'));
      let decided: Awaited<ReturnType<typeof consent.approvals.decide>>;
      try {
        decided = await consent.approvals.decide(req.params.id, decision, caller.id, caller.scopes);
      } catch {
        return sendRestError(reply, storeDown());
      }
      if (decided.kind === 'refused') {
        const e = engineError(REFUSAL_CODES[decided.reason], decided.message);
        return sendRestError(reply, e, challengeOf(runtime.access, req, e));
      }
      const a = decided.approval;
      consent.audit?.({
        event: decision === 'approve' ? 'approval_approved' : 'approval_declined',
        tool: a.tool,
        caller: a.requestedBy,
        decidedBy: caller.id,
        approvalId: a.id,
      });
      return reply
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ approval: approvalJson(a, base(runtime, req), caller.id) }));
    },
  );
}
