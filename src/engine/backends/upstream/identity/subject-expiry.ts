/**
 * When a subject token stops being good (its JWT `exp`, epoch ms), read without verifying:
 * the gateway only uses it to stop using a token exchanged from it sooner, never to trust
 * anything. A token that is not a readable JWT (opaque) gives undefined: the exchanged
 * token's own lifetime bounds it then.
 */
export function subjectExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1]!.length > 8192) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    const exp = (claims as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) && exp > 0 ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
