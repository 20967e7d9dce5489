/**
 * How much of an upstream answer is read for a grant of `max-bytes`: a multiple of it,
 * so JSON can be parsed and then cut cleanly by the envelope, within fixed bounds.
 * HTTP bodies and MCP messages are read to the same cap.
 */
const READ_FACTOR = 8;
const READ_CAP_MIN = 1 << 20;
const READ_CAP_MAX = 64 << 20;

export function readCapFor(maxBytes: number): number {
  return Math.min(Math.max(maxBytes * READ_FACTOR, READ_CAP_MIN), READ_CAP_MAX);
}
