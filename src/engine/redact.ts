/**
 * Redaction of secrets from anything that leaves the gateway: results, error excerpts,
 * logs. Secrets are known at boot; each is searched as written and as it would appear
 * escaped inside a JSON string.
 */
export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

/** Shorter values are too likely to occur by chance to be worth replacing. */
const MIN_SECRET_LENGTH = 4;

export function makeRedactor(secrets: readonly string[]): Redactor {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s.length < MIN_SECRET_LENGTH) continue;
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
  }
  const list = [...forms].sort((a, b) => b.length - a.length);
  if (list.length === 0) return (text) => text;
  return function redact(text) {
    let out = text;
    for (const s of list) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  };
}
