import { describe, expect, it } from 'vitest';
import { decisionIn } from '../../src/projection/rest/decision-body.js';

describe('the body of a decision on a parked call', () => {
  it('takes either of the route’s two words', () => {
    expect(decisionIn({ decision: 'approve' }, ['approve', 'decline'])).toEqual({
      decision: 'approve',
    });
    expect(decisionIn({ decision: 'decline' }, ['confirm', 'decline'])).toEqual({
      decision: 'decline',
    });
  });

  it('refuses the other route’s word, another value, an array and no body with INVALID_ARGUMENTS naming /decision', () => {
    for (const body of [
      { decision: 'confirm' },
      { decision: true },
      [{ decision: 'approve' }],
      null,
    ])
      expect(decisionIn(body, ['approve', 'decline'])).toEqual({
        error: expect.objectContaining({
          code: 'INVALID_ARGUMENTS',
          message: 'send {"decision":"approve"} or {"decision":"decline"}',
          details: [{ field: '/decision', message: 'must be "approve" or "decline"' }],
        }),
      });
  });
});
