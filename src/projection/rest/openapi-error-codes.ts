/**
 * Which catalogue errors an operation of the REST surface can answer with: a grant's
 * follow from what it declares (path values, restrict, claims, a rate limit) and from
 * what its backend kind says it can answer (the kind's descriptor); a resource read or a prompt get answers the route's own refusals, its
 * not-found code, and the errors of every grant it may run (a template's grant).
 */
import type { ErrorCode } from '../../engine/error-catalogue.js';
import type { CompiledSpec, CredentialKind, ToolDescriptor } from '../../compiler/descriptor.js';
import { KIND_LIST, kindOf } from '../../engine/backends/kinds.js';
import { CODES, entry } from './openapi-responses.js';

/**
 * Which catalogue errors a grant can answer with. A code some backend kind answers
 * applies to the grants whose kind says so; a code without a rule applies to every
 * grant, except 429 codes, which apply to rate-limited grants only.
 */
const APPLIES: Partial<Record<ErrorCode, (d: ToolDescriptor, spec: CompiledSpec) => boolean>> = {
  UNAUTHENTICATED: (_d, spec) => spec.access !== undefined,
  INSUFFICIENT_SCOPE: (d, spec) => spec.access !== undefined && d.scopes.length > 0,
  PATH_VALUE_REJECTED: (d) => d.arguments.some((a) => a.in === 'path' && !a.fromClaim),
  EXCLUSIVE_ARGUMENTS: (d) => d.exclusive.length > 0,
  DENIED_BY_RESTRICT: (d) => d.restrict.length > 0,
  MISSING_CLAIM: (d) => d.arguments.some((a) => a.fromClaim !== undefined),
  // Upstream identity: only where the grant's upstream obtains a token (its kind says which).
  UPSTREAM_AUTH: (d, spec) => obtainsToken(credentialOf(d, spec)),
  IDENTITY_UNAVAILABLE: (d, spec) => credentialOf(d, spec) === 'exchange',
  AUTHORIZATION_REQUIRED: (d, spec) => credentialOf(d, spec).startsWith('user:'),
  // Confirmation and approval: REST cannot be asked to confirm, so of the confirmation
  // codes only "unavailable" reaches it, and only where no approval takes over.
  CONFIRMATION_UNAVAILABLE: (d) => d.consent?.confirm !== undefined && !d.consent.approve,
  CONFIRMATION_DECLINED: () => false,
  CONFIRMATION_CANCELLED: () => false,
  CONFIRMATION_TIMED_OUT: () => false,
  CONFIRMATION_INVALID: () => false,
  CONFIRMATION_EXPIRED: () => false,
  APPROVAL_REQUIRED: (d) => d.consent?.approve !== undefined,
  APPROVAL_DECLINED: (d) => d.consent?.approve !== undefined,
  APPROVAL_EXPIRED: (d) => d.consent?.approve !== undefined,
  CONSENT_UNAVAILABLE: (d) => d.consent !== undefined,
  // Answers of /api/approvals/<id>, not of a grant's route.
  APPROVAL_OWN_CALL: () => false,
  APPROVAL_DECIDED: () => false,
  // Answers of /api/confirmations/<id>.
  CONFIRMATION_OTHER_CALLER: () => false,
  CONFIRMATION_DECIDED: () => false,
  // The server's own answers, before any grant is involved: not part of a call.
  NOT_FOUND: () => false,
  METHOD_NOT_ALLOWED: () => false,
  MALFORMED_REQUEST: () => false,
  HEADERS_TOO_LARGE: () => false,
  REQUEST_TIMEOUT: () => false,
  // Answers of /api/resources/read and /api/prompts/get, not of a grant's route.
  RESOURCE_NOT_FOUND: () => false,
  UNKNOWN_PROMPT: () => false,
};

/** The credential kind a grant's upstream is called with, as its backend kind tells it. */
function credentialOf(d: ToolDescriptor, spec: CompiledSpec): CredentialKind {
  return kindOf(d.backend).credential(d.backend, spec);
}

/** A kind whose token the gateway obtains at run time, where obtaining it may fail. */
function obtainsToken(kind: CredentialKind): boolean {
  return kind === 'client-credentials' || kind === 'exchange' || kind.startsWith('user:');
}

/** A grant's route answers this for any tool name it does not know; a resource or prompt route does not. */
const TOOL_ROUTE_ONLY = new Set<ErrorCode>(['UNKNOWN_TOOL']);

/** The codes only grants of some backend kind answer. */
const KIND_CODES = new Set<ErrorCode>(
  KIND_LIST.flatMap((k) => Object.keys(k.codes) as ErrorCode[]),
);

export function errorCodesFor(d: ToolDescriptor, spec: CompiledSpec): ErrorCode[] {
  const kind = kindOf(d.backend);
  return CODES.filter((code) => {
    if (KIND_CODES.has(code)) {
      const answers = kind.codes[code];
      return answers === true || (answers?.(d.backend) ?? false);
    }
    const rule = APPLIES[code];
    if (rule) return rule(d, spec);
    return entry(code).status === 429 ? d.limits.rateLimit !== undefined : true;
  });
}

/**
 * A resource read's or prompt get's codes: those every route answers (no rule and no
 * rate limit: malformed JSON, bad arguments, overload…), the route's `notFound`, the
 * scope refusals when the spec has access, and every code of the grants it may run.
 */
export function resourcePromptCodesFor(
  notFound: readonly ('RESOURCE_NOT_FOUND' | 'UNKNOWN_PROMPT')[],
  grants: readonly ToolDescriptor[],
  scoped: boolean,
  spec: CompiledSpec,
): ErrorCode[] {
  const codes = new Set<ErrorCode>(notFound);
  for (const code of CODES)
    if (
      !APPLIES[code] &&
      !KIND_CODES.has(code) &&
      entry(code).status !== 429 &&
      !TOOL_ROUTE_ONLY.has(code)
    )
      codes.add(code);
  if (spec.access) codes.add('UNAUTHENTICATED');
  if (spec.access && scoped) codes.add('INSUFFICIENT_SCOPE');
  for (const d of grants)
    for (const code of errorCodesFor(d, spec)) if (!TOOL_ROUTE_ONLY.has(code)) codes.add(code);
  return CODES.filter((c) => codes.has(c));
}
