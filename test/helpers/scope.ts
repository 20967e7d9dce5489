/**
 * The request scope a test hands the engine directly, as a surface's gate would build it:
 * the caller, nothing to ask, and approvals named by their page on a gateway at
 * http://gateway.test.
 */
import type { AnsweringScope } from '../../src/engine/call-context.js';
import type { Caller } from '../../src/engine/caller.js';

export function scopeFor(caller: Caller): AnsweringScope {
  return { caller, approvalUrl: (id) => `http://gateway.test/approvals/${id}` };
}
