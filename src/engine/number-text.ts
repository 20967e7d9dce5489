/**
 * Numbers as the caller wrote them. JSON.parse makes every number a double, so
 * `12345678901234567890` becomes ...7000, `1e400` becomes Infinity (sent as null) and
 * `-0` loses its sign; yet `raw` is forwarded verbatim (spec-language.md) and a typed
 * number must never be rounded silently. Node 20's JSON.parse gives no source text,
 * so a body that may hold such a number (a scan of the text outside its strings decides,
 * cheaply) is read a second time by the small parser below, which keeps the text of
 * each number a double does not give back unchanged. The text lives beside the
 * parsed value, by container and key, in a WeakMap: validation still sees plain JSON
 * values, the serializers write the kept text back, and the typed-number guard
 * refuses values a double cannot hold.
 */

type Key = string | number;

/** The caller's text of each kept number, by container and key (arrays: by index). */
type Texts = Map<string, string> | (string | undefined)[];
const KEPT = new WeakMap<object, Texts>();
/** Containers holding a kept number, themselves or deeper down. */
const HOLDERS = new WeakSet<object>();
/**
 * Containers the second read made: one of them outside HOLDERS holds no kept text, so
 * the writer hands it to JSON.stringify whole. A container built later (a body) is
 * not here and is walked, since a raw value inside it may hold one.
 */
const READ = new WeakSet<object>();

/**
 * Whether valid JSON text holds a number a double may not give back as written:
 * `-0`, an exponent, 16 or more digits (a double carries 15 exactly), a fraction
 * ending in 0, or a value below 1e-6 (JavaScript writes those with an exponent).
 * Strings are skipped with indexOf, so a body of text costs little more than its
 * structure; a number that only looks odd costs the second read, never a value.
 */
export function mayHoldOddNumber(t: string): boolean {
  const n = t.length;
  let i = 0;
  while (i < n) {
    const c = t.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: one with an even run of backslashes before it.
      let j = i;
      for (;;) {
        j = t.indexOf('"', j + 1);
        let b = j - 1;
        while (t.charCodeAt(b) === 0x5c) b--;
        if ((j - 1 - b) % 2 === 0) break;
      }
      i = j + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      let digits = 0;
      let dot = -1;
      let last = 0;
      for (; i < n; i++) {
        const d = t.charCodeAt(i);
        if (d >= 0x30 && d <= 0x39) {
          digits++;
          last = d;
        } else if (d === 0x2e) dot = i;
        else if ((d | 0x20) === 0x65) return true;
        else if (d !== 0x2d) break;
      }
      if (digits >= 16) return true;
      if (dot >= 0 && last === 0x30) return true;
      const lead = c === 0x2d ? start + 1 : start;
      if (c === 0x2d && digits === 1 && last === 0x30 && dot < 0) return true;
      if (dot === lead + 1 && t.charCodeAt(lead) === 0x30 && t.startsWith('000000', dot + 1))
        return true;
    } else i++;
  }
  return false;
}

/**
 * JSON.parse, with the text of every non-canonical number kept. Callers bound the
 * nesting depth first (json-depth.ts): the second read recurses.
 */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!mayHoldOddNumber(text)) return value;
  const reader = new KeepingReader(text);
  const kept = reader.value();
  return reader.keptAny ? kept : value;
}

/** Whether `v` (an object or array) holds a kept number text at any depth. */
export function holdsNumberText(v: unknown): boolean {
  return v !== null && typeof v === 'object' && HOLDERS.has(v);
}

/** The caller's text of the number at `container[key]`, when it was kept and is still there. */
export function numberTextAt(container: object, key: Key, value: unknown): string | undefined {
  const texts = KEPT.get(container);
  const text = Array.isArray(texts) ? texts[key as number] : texts?.get(key as string);
  // The text applies only while the value is still the double made of it.
  return text !== undefined && Object.is(Number(text), value) ? text : undefined;
}

/** The kept texts of one container as a lookup like numberTextAt's, or undefined for none. */
export function numberTextsOf(
  container: object,
): ((key: Key, value: unknown) => string | undefined) | undefined {
  const texts = KEPT.get(container);
  if (texts === undefined) return undefined;
  return (key, value) => {
    const text = Array.isArray(texts) ? texts[key as number] : texts.get(key as string);
    return text !== undefined && Object.is(Number(text), value) ? text : undefined;
  };
}

/** Makes `to` (a copy of `from`) carry the number texts `from` carries. */
export function carryNumberText(from: object, to: object): void {
  const kept = KEPT.get(from);
  if (kept) KEPT.set(to, kept);
  if (HOLDERS.has(from)) HOLDERS.add(to);
  if (READ.has(from)) READ.add(to);
}

/**
 * JSON text of `v`, writing kept numbers as the caller wrote them. `exact` is whether
 * anything kept can be inside (the arguments it was built from hold a kept number);
 * otherwise this is JSON.stringify.
 */
export function stringifyJson(v: unknown, exact = holdsNumberText(v)): string {
  return exact ? (writeExact(v) ?? 'null') : JSON.stringify(v);
}

function writeExact(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || (READ.has(v) && !HOLDERS.has(v)))
    return JSON.stringify(v);
  const kept = KEPT.get(v);
  const member = (container: object, key: Key, x: unknown): string | undefined =>
    (kept && typeof x === 'number' && numberTextAt(container, key, x)) || writeExact(x);
  if (Array.isArray(v)) {
    const parts: string[] = [];
    for (let i = 0; i < v.length; i++) parts.push(member(v, i, v[i]) ?? 'null');
    return `[${parts.join(',')}]`;
  }
  const parts: string[] = [];
  for (const k of Object.keys(v)) {
    const text = member(v, k, (v as Record<string, unknown>)[k]);
    if (text !== undefined) parts.push(`${JSON.stringify(k)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * Whether the value a number text denotes differs from the double made of it
 * (`9007199254740993` → ...992, `1e400` → Infinity, `1e-400` → 0). `1.50`, `1E2`
 * and `-0` are the same values as their doubles and do not differ.
 */
export function differsFromDouble(text: string): boolean {
  // Up to 15 significant digits without an exponent always survive a double (DBL_DIG).
  const marks = (text.charCodeAt(0) === 0x2d ? 1 : 0) + (text.includes('.') ? 1 : 0);
  if (text.length - marks <= 15 && !/[eE]/.test(text)) return false;
  const n = Number(text);
  if (!Number.isFinite(n)) return true;
  return decimalKey(text) !== decimalKey(String(n));
}

/** A decimal as sign, significant digits and exponent: equal keys, equal values. */
function decimalKey(s: string): string {
  const neg = s.startsWith('-');
  const e = s.search(/[eE]/);
  const mantissa = s.slice(neg ? 1 : 0, e < 0 ? s.length : e);
  const dot = mantissa.indexOf('.');
  const int = dot < 0 ? mantissa : mantissa.slice(0, dot);
  let digits = dot < 0 ? mantissa : int + mantissa.slice(dot + 1);
  // An exponent beyond what the double can follow is caught by isFinite or by the digits.
  let point = int.length + (e < 0 ? 0 : Number(s.slice(e + 1)));
  const lead = /^0*/.exec(digits)![0].length;
  digits = digits.slice(lead).replace(/0+$/, '');
  point -= lead;
  if (digits === '') return '0';
  return `${neg ? '-' : ''}${digits}e${point}`;
}

/** A second read of text JSON.parse accepted: builds the same values, keeps number texts. */
class KeepingReader {
  private i = 0;
  private readonly path: object[] = [];
  keptAny = false;

  constructor(private readonly text: string) {}

  value(): unknown {
    this.space();
    const c = this.text.charCodeAt(this.i);
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return this.string();
    if (c === 0x74) return this.word(4, true);
    if (c === 0x66) return this.word(5, false);
    if (c === 0x6e) return this.word(4, null);
    return this.number();
  }

  private word<T>(length: number, v: T): T {
    this.i += length;
    return v;
  }

  private space(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  private string(): string {
    const t = this.text;
    const start = this.i;
    let escaped = false;
    let j = start + 1;
    for (;;) {
      const c = t.charCodeAt(j);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        j++;
      }
      j++;
    }
    this.i = j + 1;
    return escaped ? (JSON.parse(t.slice(start, j + 1)) as string) : t.slice(start + 1, j);
  }

  /** The caller's text of the number just read, when a double does not give it back. */
  private numberText: string | undefined;

  private number(): number {
    const t = this.text;
    const start = this.i;
    let j = start;
    for (;;) {
      const c = t.charCodeAt(j);
      // digits, '+', '-', '.', 'e', 'E'
      if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || (c | 0x20) === 0x65)
        j++;
      else break;
    }
    this.i = j;
    const text = t.slice(start, j);
    const value = Number(text);
    // String(-0) is "0" and String(Infinity) is no JSON number: both differ from any text.
    this.numberText = String(value) === text ? undefined : text;
    return value;
  }

  /** A member value; `numberText` says whether it is a number whose text is kept. */
  private member(): unknown {
    this.space();
    const c = this.text.charCodeAt(this.i);
    this.numberText = undefined;
    return (c >= 0x30 && c <= 0x39) || c === 0x2d ? this.number() : this.value();
  }

  /** The kept texts of `container`, made on its first kept number; marks it and its parents. */
  private keptOf<T extends Texts>(container: object, kept: T): T {
    KEPT.set(container, kept);
    this.keptAny = true;
    for (const p of this.path) HOLDERS.add(p);
    return kept;
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    READ.add(out);
    this.path.push(out);
    this.i++;
    this.space();
    if (this.text.charCodeAt(this.i) === 0x7d) {
      this.i++;
      this.path.pop();
      return out;
    }
    let kept: Map<string, string> | undefined;
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      this.i++; // ':'
      const v = this.member();
      if (this.numberText !== undefined)
        (kept ??= this.keptOf(out, new Map())).set(key, this.numberText);
      else kept?.delete(key); // a repeated key: its last value is the one that counts
      if (key === '__proto__')
        // JSON.parse makes an own member of it; plain assignment would set the prototype.
        Object.defineProperty(out, key, {
          value: v,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      else out[key] = v;
      this.space();
      if (this.text.charCodeAt(this.i++) === 0x7d) break; // else ','
    }
    this.path.pop();
    return out;
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    READ.add(out);
    this.path.push(out);
    this.i++;
    this.space();
    if (this.text.charCodeAt(this.i) === 0x5d) {
      this.i++;
      this.path.pop();
      return out;
    }
    let kept: (string | undefined)[] | undefined;
    for (;;) {
      const v = this.member();
      if (this.numberText !== undefined)
        (kept ??= this.keptOf(out, []))[out.length] = this.numberText;
      out.push(v);
      this.space();
      if (this.text.charCodeAt(this.i++) === 0x5d) break; // else ','
    }
    this.path.pop();
    return out;
  }
}
