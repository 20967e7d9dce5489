/**
 * `GET /api/confirmations/<id>` and `POST /api/confirmations/<id>` (docs/spec-language.md,
 * "`confirm` on the confirmation page (URL elicitation)"): what the confirmation page shows of one confirmation,
 * and the caller's own answer to it. Only the caller whose call it is may see or answer
 * it (the store decides; any other identity is 403 and the call does not run). As for
 * approvals (approval-routes.ts), a browser cannot be made to answer for its user: the
 * credential travels in a header (or the session cookie, answering only with the
 * gateway's own Origin), the body must be JSON, and foreign Origins are refused.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { CallerGate, GatedRuntime } from '../../access/authenticate.js';
import type { Approval, DecideRefusal } from '../../engine/consent/approvals.js';
import { engineError, type ErrorCode } from '../../engine/error-catalogue.js';
import { confirmPageUrl } from '../approval-url.js';
import { decisionIn } from './decision-body.js';
import { sendRestError } from './rest-error.js';
import type { RestRuntime } from './rest-runtime.js';

export const CONFIRMATIONS_API_PATH = '/api/confirmations';

const NO_SUCH = 'no such confirmation: it ran, lapsed a while ago, or never existed';

const REFUSALS: Readonly<Record<DecideRefusal, { code: ErrorCode; message: string }>> = {
  unknown: { code: 'NOT_FOUND', message: NO_SUCH },
  'other-caller': {
    code: 'CONFIRMATION_OTHER_CALLER',
    message: 'this confirmation belongs to another caller; only its own caller may answer it',
  },
  expired: {
    code: 'CONFIRMATION_EXPIRED',
    message: 'the confirmation has lapsed; make the call again to ask anew',
  },
  'already-decided': {
    code: 'CONFIRMATION_DECIDED',
    message: 'the confirmation has already been answered',
  },
  // An approval's refusals: never said of a confirmation.
  'missing-scope': { code: 'NOT_FOUND', message: NO_SUCH },
  'own-request': { code: 'NOT_FOUND', message: NO_SUCH },
};

const storeDown = (): ReturnType<typeof engineError> =>
  engineError(
    'CONSENT_UNAVAILABLE',
    'the store of confirmations does not answer; nothing was shown or answered. Retry shortly',
    { retryAfter: 1 },
  );

type ConfirmationStatus = 'pending' | 'confirmed' | 'declined' | 'expired';

function statusOf(c: Approval, now: number): ConfirmationStatus {
  if (c.status === 'approved') return 'confirmed';
  if (c.status === 'declined') return 'declined';
  return c.expiresAt <= now ? 'expired' : 'pending';
}

/** One confirmation as the API and the page show it: never the arguments, only their message. */
function confirmationJson(c: Approval, base: string, now: number): Record<string, unknown> {
  return {
    id: c.id,
    tool: c.tool,
    message: c.message,
    status: statusOf(c, now),
    requested_at: new Date(c.requestedAt).toISOString(),
    expires_at: new Date(c.expiresAt).toISOString(),
    url: confirmPageUrl(base, c.id),
  };
}

function sendJson(reply: FastifyReply, value: unknown): FastifyReply {
  return reply
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(value));
}

export function registerConfirmationRoutes<R extends RestRuntime & GatedRuntime>(
  scope: FastifyInstance,
  gate: CallerGate<R>,
): void {
  // The pages' APIs: the browser session of a signed-in person is a credential here.
  const hooks = gate.pageHooks;

  scope.get<{ Params: { id: string } }>(
    `${CONFIRMATIONS_API_PATH}/:id`,
    hooks,
    async function showConfirmation(req, reply) {
      const { runtime, caller } = gate.served(req);
      const store = runtime.gateway.consent?.approvals;
      let found: Approval | undefined;
      try {
        found = store && (await store.find(req.params.id, 'confirmation'));
      } catch {
        return sendRestError(reply, storeDown());
      }
      if (!found) return sendRestError(reply, engineError('NOT_FOUND', NO_SUCH));
      if (found.requestedBy !== caller.id) {
        const r = REFUSALS['other-caller'];
        return sendRestError(reply, engineError(r.code, r.message));
      }
      const base = runtime.access.baseUrl(req);
      const now = runtime.gateway.consent?.now?.() ?? Date.now();
      return sendJson(reply, { confirmation: confirmationJson(found, base, now) });
    },
  );

  scope.post<{ Params: { id: string } }>(
    `${CONFIRMATIONS_API_PATH}/:id`,
    hooks,
    async function answerConfirmation(req, reply) {
      const { runtime, caller } = gate.served(req);
      const body = (req.body as { value?: unknown } | undefined)?.value;
      const read = decisionIn(body, ['confirm', 'decline']);
      if ('error' in read) return sendRestError(reply, read.error);
      const { decision } = read;
      const consent = runtime.gateway.consent;
      if (!consent) return sendRestError(reply, engineError('NOT_FOUND', NO_SUCH));
      let decided: Awaited<ReturnType<typeof consent.approvals.decide>>;
      try {
        decided = await consent.approvals.decide(
          req.params.id,
          decision === 'confirm' ? 'approve' : 'decline',
          caller.id,
          caller.scopes,
          'confirmation',
        );
      } catch {
        return sendRestError(reply, storeDown());
      }
      if (decided.kind === 'refused') {
        const r = REFUSALS[decided.reason];
        return sendRestError(reply, engineError(r.code, r.message));
      }
      const c = decided.approval;
      consent.audit?.({
        event: decision === 'confirm' ? 'confirmation_confirmed' : 'confirmation_declined',
        tool: c.tool,
        caller: c.requestedBy,
        decidedBy: caller.id,
        confirmationId: c.id,
      });
      const base = runtime.access.baseUrl(req);
      const now = consent.now?.() ?? Date.now();
      return sendJson(reply, { confirmation: confirmationJson(c, base, now) });
    },
  );
}
