/**
 * How an echoing upstream may spell a secret, written here independently of
 * src/engine/redact.ts, and a check that none of them is in what a caller received.
 */

function hex(n: number, width: number, upper: boolean): string {
  const h = n.toString(16).padStart(width, '0');
  return upper ? h.toUpperCase() : h;
}

/** Every UTF-16 unit of the characters `pick` selects as \uXXXX. */
function unicodeEscaped(v: string, upper: boolean, pick: (ch: string) => boolean): string {
  let out = '';
  for (const ch of v) {
    if (!pick(ch)) out += ch;
    else for (let i = 0; i < ch.length; i++) out += `\\u${hex(ch.charCodeAt(i), 4, upper)}`;
  }
  return out;
}

const lowerHex = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** URLSearchParams' encoding of one value. */
export const formEncoded = (v: string): string =>
  new URLSearchParams([['', v]]).toString().slice(1);

/** RFC 3986 percent-encoding of one value: all but `A-Z a-z 0-9 - . _ ~` escaped. */
export const percentEncoded = (v: string): string =>
  encodeURIComponent(v).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

const notAlnum = (ch: string): boolean => !/^[A-Za-z0-9]$/.test(ch);

/** The spellings of `v` that echoes produce: JSON (PHP, .NET, any \u), URL, form, base64. */
export function spellingsOf(v: string): string[] {
  const json = JSON.stringify(v).slice(1, -1);
  const forms = [
    v,
    json,
    json.replace(/\//g, '\\/'),
    JSON.stringify(JSON.stringify(v)).slice(1, -1),
    unicodeEscaped(v, false, notAlnum),
    unicodeEscaped(v, true, notAlnum),
    unicodeEscaped(v, true, () => true),
    Buffer.from(v, 'utf8').toString('base64'),
    Buffer.from(v, 'utf8').toString('base64url'),
  ];
  try {
    forms.push(encodeURIComponent(v), lowerHex(encodeURIComponent(v)));
  } catch {
    // A lone surrogate has no URI encoding.
  }
  forms.push(formEncoded(v), lowerHex(formEncoded(v)));
  return [...new Set(forms)];
}

/**
 * The part of base64(x + v + y) that depends on v alone, for x of 1 and 2 bytes: without
 * the first group of four characters (it holds bits of x) and the last (bits of y).
 */
export function embeddedBase64(v: string): string[] {
  const out: string[] = [];
  for (const offset of [1, 2]) {
    for (const alphabet of ['base64', 'base64url'] as const) {
      const enc = Buffer.concat([Buffer.alloc(offset), Buffer.from(v, 'utf8')]).toString(alphabet);
      const core = enc.slice(4, Math.floor((enc.length - 1) / 4) * 4);
      if (core.length >= 8) out.push(core);
    }
  }
  return out;
}

/**
 * Every text a caller can read out of a reply: the bytes, every string in the parsed
 * JSON, and the strings of JSON held in those strings (MCP's text content).
 */
export function readableTexts(body: string): string[] {
  const out = [body];
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string') {
      out.push(v);
      if (depth < 3) {
        try {
          walk(JSON.parse(v) as unknown, depth + 1);
        } catch {
          // not JSON
        }
      }
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, depth));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        walk(x, depth);
      }
  };
  try {
    walk(JSON.parse(body) as unknown, 0);
  } catch {
    // not JSON
  }
  return out;
}

/**
 * The spellings of any of `values` found in `body` (also inside the base64 of a longer
 * text), for an expect(...).toEqual([]).
 */
export function leaksIn(body: string, values: readonly string[]): string[] {
  const texts = readableTexts(body);
  const found = new Set<string>();
  for (const v of values)
    for (const s of [...spellingsOf(v), ...embeddedBase64(v)])
      if (texts.some((t) => t.includes(s))) found.add(s);
  return [...found];
}
