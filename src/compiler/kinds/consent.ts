/**
 * The consent children of a grant: `confirm "<message>"` and `approve "<message>"
 * by="<scope>" expires="<duration>"` (docs/spec-language.md, "Confirmation and approval").
 * Their rows read each node alone (an empty message, a scope no caller could hold, an
 * expiry out of bounds); the check, once the grant's arguments are placed, holds every
 * `{arg}` of a message to a declared argument and an `approve` to an `access` block that
 * gives callers identities; the lowering is the descriptor's `consent`.
 */
import { closestName } from '../closest-name.js';
import type { Diagnostics, Located, Position, Subject } from '../diagnostics.js';
import type { AccessDescriptor, ConsentDescriptor, ConsentMessage } from '../descriptor.js';
import { arg, argAt, prop, propAt, type NodeKind, type ReadNode } from '../kdl-reader.js';
import { placeholdersOf, splitPlaceholders } from '../prompt-text.js';
import { parseDuration } from '../values.js';

/** `confirm "<message>" clients="eliciting"` as read: the message, at its string. */
export interface ConfirmSpec {
  readonly at: Position;
  readonly message: Located<string>;
  /** `clients="eliciting"`: the author knows only clients that can be asked may call it. */
  readonly clients?: Located<typeof ELICITING>;
}

/** `approve` as read; `scope` is absent when `by=` was missing or refused. */
export interface ApproveSpec {
  readonly at: Position;
  readonly message: Located<string>;
  readonly scope?: Located<string>;
  /** Absent when `expires=` was refused (the spec then does not lower). */
  readonly expiresMs?: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** An approval nobody decides within an hour is most likely forgotten. */
const DEFAULT_EXPIRES_MS = HOUR_MS;
/** Below a minute an approver can hardly open the page; beyond a week the call it
 * approves is no longer the one asked about. */
const MIN_EXPIRES_MS = MINUTE_MS;
const MAX_EXPIRES_MS = 168 * HOUR_MS;

const MESSAGE = { what: 'a message ("Delete order {id}?")', type: 'string' } as const;

/** The message argument, refused when empty (there would be nothing to say yes to). */
function message(n: ReadNode, diag: Diagnostics): Located<string> | undefined {
  const text = arg<string>(n, 0);
  if (text === undefined) return undefined;
  const at = argAt(n, 0);
  if (text.trim() === '')
    diag.error(
      'SPEC_MISSING',
      at,
      n.subject,
      `\`${n.name}\` needs a message saying what is about to happen; this one is empty`,
    );
  return { value: text, at };
}

/** The one value of `confirm clients=`: the clients that declare elicitation. */
const ELICITING = 'eliciting';

export const CONFIRM: NodeKind<ConfirmSpec> = {
  args: [MESSAGE],
  props: { clients: { type: 'string' } },
  build(n, { diag }) {
    const m = message(n, diag);
    if (!m) return undefined;
    return { at: n.at, message: m, ...clientsOf(n, diag) };
  },
};

/**
 * `clients="eliciting"` says what the spec's author accepts: only a client that can ask
 * its user may call the tool. It changes nothing at run time; it answers `check`'s
 * SPEC_CONFIRM_CLIENTS, so a spec says on purpose that the rest are refused.
 */
function clientsOf(n: ReadNode, diag: Diagnostics): { clients?: Located<typeof ELICITING> } {
  const clients = prop<string>(n, 'clients');
  if (clients === undefined) return {};
  const at = propAt(n, 'clients');
  if (clients !== ELICITING) {
    diag.error(
      'SPEC_VALUE_TYPE',
      at,
      n.subject,
      `clients=${JSON.stringify(clients)} is not known; the one value is "${ELICITING}" (only clients that declare elicitation call this tool)`,
    );
    return {};
  }
  return { clients: { value: ELICITING, at } };
}

export const APPROVE: NodeKind<ApproveSpec> = {
  args: [MESSAGE],
  props: { by: { type: 'string', required: true }, expires: { type: 'string' } },
  build(n, { diag }) {
    const m = message(n, diag);
    if (!m) return undefined;
    return {
      at: n.at,
      message: m,
      ...scopeOf(n, diag),
      ...expiresOf(n, diag),
    };
  },
};

/** `by=`: one scope, as `scope` and `api-key scopes=` name them (no spaces: those separate scopes). */
function scopeOf(n: ReadNode, diag: Diagnostics): { scope?: Located<string> } {
  const by = prop<string>(n, 'by');
  if (by === undefined) return {};
  const at = propAt(n, 'by');
  if (by === '') {
    diag.error('SPEC_MISSING', at, n.subject, '`approve` needs by="<scope>", a scope name');
    return {};
  }
  if (/\s/.test(by)) {
    diag.error(
      'SPEC_VALUE_TYPE',
      at,
      n.subject,
      `by=${JSON.stringify(by)} must be one scope name, without spaces`,
    );
    return {};
  }
  return { scope: { value: by, at } };
}

function expiresOf(n: ReadNode, diag: Diagnostics): { expiresMs?: number } {
  const text = prop<string>(n, 'expires');
  if (text === undefined) return { expiresMs: DEFAULT_EXPIRES_MS };
  const at = propAt(n, 'expires');
  const ms = parseDuration(text);
  if (ms === undefined) {
    diag.error(
      'SPEC_DURATION',
      at,
      n.subject,
      `expires=${JSON.stringify(text)} is not a duration like 15m, 1h or 24h`,
    );
    return {};
  }
  if (ms < MIN_EXPIRES_MS || ms > MAX_EXPIRES_MS) {
    diag.error(
      'SPEC_VALUE_TYPE',
      at,
      n.subject,
      `expires=${JSON.stringify(text)} must be at least 1m and at most 168h (7 days)`,
    );
    return {};
  }
  return { expiresMs: ms };
}

/** A grant's consent children against its declared arguments and the spec's `access`. */
export function checkConsent(
  consent: { readonly confirm?: ConfirmSpec; readonly approve?: ApproveSpec },
  declared: readonly string[],
  access: AccessDescriptor | undefined,
  diag: Diagnostics,
  subject: Subject,
): void {
  const { confirm, approve } = consent;
  if (confirm) {
    checkPlaceholders(confirm.message, declared, diag, [...subject, 'confirm']);
    checkConfirmClients(confirm, approve !== undefined, diag, [...subject, 'confirm']);
  }
  if (!approve) return;
  const where = [...subject, 'approve'];
  checkPlaceholders(approve.message, declared, diag, where);
  if (!access) {
    diag.error(
      'SPEC_MISSING',
      approve.at,
      where,
      'approve needs an `access` block: without caller identities the approver cannot be told apart from the caller',
    );
    return;
  }
  const scope = approve.scope;
  if (!scope || access.oauth) return;
  if (!access.apiKeys.some((k) => k.scopes.includes(scope.value)))
    diag.warn(
      'SPEC_NO_APPROVER',
      scope.at,
      where,
      `no api-key in access holds ${scope.value} and there is no oauth: nobody could approve`,
    );
}

/**
 * Who can call a `confirm` grant is easy to miss: only a client that can ask its user
 * (one declaring elicitation). REST, the catalog page and most agent frameworks are
 * refused with CONFIRMATION_UNAVAILABLE unless `approve` lets someone else say yes. A
 * warning, never an error: the spec serves as written.
 */
function checkConfirmClients(
  confirm: ConfirmSpec,
  approved: boolean,
  diag: Diagnostics,
  subject: Subject,
): void {
  if (!approved && !confirm.clients)
    diag.warn(
      'SPEC_CONFIRM_CLIENTS',
      confirm.at,
      subject,
      'only clients that declare elicitation can call this tool; REST, the catalog page and MCP clients without elicitation get CONFIRMATION_UNAVAILABLE. Add `approve "<message>" by="<scope>"` to the grant so someone else can say yes for them, or write clients="eliciting" on confirm if that is meant',
    );
  else if (approved && confirm.clients)
    diag.warn(
      'SPEC_CONFIRM_CLIENTS',
      confirm.clients.at,
      subject,
      'clients="eliciting" says only clients that declare elicitation call this tool, but `approve` lets every other client call it once approved: remove clients= (or approve)',
    );
}

function checkPlaceholders(
  text: Located<string>,
  declared: readonly string[],
  diag: Diagnostics,
  subject: Subject,
): void {
  for (const name of new Set(placeholdersOf(text.value))) {
    if (declared.includes(name)) continue;
    const guess = closestName(name, declared);
    const mean = guess ? `; did you mean {${guess}}?` : '';
    diag.error(
      'SPEC_PLACEHOLDER',
      text.at,
      subject,
      `placeholder {${name}} is not a declared argument${mean} (declared: ${declared.join(', ') || 'none'})`,
    );
  }
}

function lowerMessage(text: string): ConsentMessage {
  return { text, parts: splitPlaceholders(text) };
}

/** The descriptor's `consent` of a clean grant; undefined when it has neither child. */
export function lowerConsent(consent: {
  readonly confirm?: ConfirmSpec;
  readonly approve?: ApproveSpec;
}): ConsentDescriptor | undefined {
  const { confirm, approve } = consent;
  if (!confirm && !approve) return undefined;
  return {
    ...(confirm && { confirm: { message: lowerMessage(confirm.message.value) } }),
    ...(approve && { approve: lowerApprove(approve) }),
  };
}

function lowerApprove(a: ApproveSpec): NonNullable<ConsentDescriptor['approve']> {
  if (!a.scope || a.expiresMs === undefined) throw new Error('lowering an unchecked approve');
  return { message: lowerMessage(a.message.value), scope: a.scope.value, expiresMs: a.expiresMs };
}

/**
 * The sentence a consent grant's description ends with, so a model (and the person
 * reading a tool list) knows before calling that someone will be asked: the same words
 * on every surface that shows the description (tools/list of both eras, OpenAPI, GET /api).
 */
export function consentSentence(c: ConsentDescriptor): string {
  const approver = c.approve && `someone holding ${c.approve.scope} approves it`;
  if (c.confirm && approver) return `Asks its user to confirm, and runs only after ${approver}.`;
  if (c.confirm) return 'Asks its user to confirm before it runs.';
  return `Runs only after ${approver!}.`;
}
