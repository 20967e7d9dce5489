/**
 * The form a confirmation asks in both eras (docs/spec-language.md, "Confirmation and
 * approval"): one required boolean. Its own file because the 2026-07-28 answer
 * (consent-round-trip.ts) and the 2025-era stream (question-stream.ts) both put it, and
 * the stream's reply type must not import the round trip back.
 */
export const CONFIRM_SCHEMA = Object.freeze({
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Confirm', description: 'Run this call?' } },
  required: ['confirm'],
});
