/**
 * Numbers as the caller wrote them. JSON.parse makes every number a double, so
 * `12345678901234567890` becomes ...7000, `1e400` becomes Infinity (sent as null) and
 * `-0` loses its sign; yet `raw` is forwarded verbatim (spec-language.md) and a typed
 * number must never be rounded silently. Node 20's JSON.parse gives no source text,
 * so a body that may hold such a number (a scan of the text outside its strings decides,
 * cheaply) is read a second time by the small parser below, which keeps the text of
 * each number a double does not give back unchanged.
 *
 * Why the texts travel as a value beside the parsed JSON (`ExactJson`), by position:
 * validation and every guard still see plain JSON values, and nothing global remembers
 * anything. `NumberTexts` is a tree shaped like the value, holding only what was kept:
 * per container the texts of its own number members and the trees of members that hold
 * one deeper (undefined where nothing was kept, so a call without such a number carries
 * `texts: undefined` and pays nothing). Keyed by position rather than by object, a copy
 * of the same shape (null-prototype.ts) keeps the texts by construction, deleting a
 * `null` member (guards/optional-nulls.ts) leaves them right, and a text applies only
 * while the value at its place is still the double made of it. Whatever builds a new
 * value (an upstream body, URI variables) must say which texts come along, since the
 * type asks for `texts`: the body writer grafts a member's tree where it places it.
 */

type Key = string | number;

/** The caller's text of the numbers in one JSON value, by position (see above). */
export class NumberTexts {
  private constructor(
    /** The texts of this container's own number members, by key (arrays: by index). */
    private readonly own: ReadonlyMap<Key, string> | undefined,
    /** The trees of its members that hold a kept text themselves or deeper down. */
    private readonly below: ReadonlyMap<Key, NumberTexts> | undefined,
  ) {}

  /** A tree of these parts, or undefined when it would keep nothing. */
  static of(
    own: ReadonlyMap<Key, string> | undefined,
    below: ReadonlyMap<Key, NumberTexts> | undefined,
  ): NumberTexts | undefined {
    const hasOwn = own !== undefined && own.size > 0;
    const hasBelow = below !== undefined && below.size > 0;
    if (!hasOwn && !hasBelow) return undefined;
    return new NumberTexts(hasOwn ? own : undefined, hasBelow ? below : undefined);
  }

  /**
   * `texts` with the tree of member `key` replaced by `member` (a value placed there);
   * the texts of its own numbers stay, since they apply only while the double is there.
   */
  static withMember(
    texts: NumberTexts | undefined,
    key: Key,
    member: NumberTexts | undefined,
  ): NumberTexts | undefined {
    if (texts?.below?.get(key) === member) return texts;
    const below = new Map(texts?.below);
    if (member === undefined) below.delete(key);
    else below.set(key, member);
    return NumberTexts.of(texts?.own, below);
  }

  /** The caller's text of the number member `key`, while `value` is still the double made of it. */
  textAt(key: Key, value: unknown): string | undefined {
    const text = this.own?.get(key);
    return text !== undefined && Object.is(Number(text), value) ? text : undefined;
  }

  /** The tree of the container member `key`, when it holds a kept text. */
  at(key: Key): NumberTexts | undefined {
    return this.below?.get(key);
  }

  /** The same tree without this container's own texts: a copy of it sends them by value. */
  withoutOwn(): NumberTexts | undefined {
    return this.own === undefined ? this : NumberTexts.of(undefined, this.below);
  }
}

/** A JSON value with the caller's text of those of its numbers a double would change. */
export interface ExactJson<T = unknown> {
  readonly value: T;
  /** Undefined when no number needed its text kept: the usual case. */
  readonly texts: NumberTexts | undefined;
}

/** A value made here, not read from a caller: its numbers are the doubles they are. */
export function withoutNumberTexts<T>(value: T): ExactJson<T> {
  return { value, texts: undefined };
}

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
export function parseJson(text: string): ExactJson {
  const value: unknown = JSON.parse(text);
  if (!mayHoldOddNumber(text)) return { value, texts: undefined };
  const reader = new KeepingReader(text);
  const kept = reader.value();
  // Nothing kept (or a bare number at the top, which has no container): JSON.parse's value.
  return reader.texts ? { value: kept, texts: reader.texts } : { value, texts: undefined };
}

/** JSON text of `v`, writing the numbers `texts` keeps as the caller wrote them. */
export function stringifyJson(v: unknown, texts: NumberTexts | undefined): string {
  return texts ? (writeExact(v, texts) ?? 'null') : JSON.stringify(v);
}

function writeExact(v: unknown, texts: NumberTexts | undefined): string | undefined {
  // Where nothing is kept, JSON.stringify writes the same text, faster.
  if (texts === undefined || v === null || typeof v !== 'object') return JSON.stringify(v);
  const member = (key: Key, x: unknown): string | undefined =>
    (typeof x === 'number' && texts.textAt(key, x)) || writeExact(x, texts.at(key));
  if (Array.isArray(v)) {
    const parts: string[] = [];
    for (let i = 0; i < v.length; i++) parts.push(member(i, v[i]) ?? 'null');
    return `[${parts.join(',')}]`;
  }
  const parts: string[] = [];
  for (const k of Object.keys(v)) {
    const text = member(k, (v as Record<string, unknown>)[k]);
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
  /** The kept texts of the container just read (of the whole value, once done). */
  texts: NumberTexts | undefined;

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

  /**
   * A member value; `numberText` says whether it is a number whose text is kept, and
   * `texts` what a container member keeps.
   */
  private member(): unknown {
    this.space();
    const c = this.text.charCodeAt(this.i);
    this.texts = undefined;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2d) return this.number();
    const v = this.value();
    // A container's members set it; the container itself is no number.
    this.numberText = undefined;
    return v;
  }

  /** Steps into a container; true, past its closing bracket, when it is empty. */
  private empty(close: number): boolean {
    this.i++;
    this.space();
    if (this.text.charCodeAt(this.i) !== close) return false;
    this.i++;
    this.texts = undefined;
    return true;
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.empty(0x7d)) return out;
    let own: Map<Key, string> | undefined;
    let below: Map<Key, NumberTexts> | undefined;
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      this.i++; // ':'
      const v = this.member();
      // A repeated key: its last value is the one that counts, so an earlier one's go.
      if (this.numberText !== undefined) (own ??= new Map()).set(key, this.numberText);
      else own?.delete(key);
      if (this.texts !== undefined) (below ??= new Map()).set(key, this.texts);
      else below?.delete(key);
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
    this.texts = NumberTexts.of(own, below);
    return out;
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    if (this.empty(0x5d)) return out;
    let own: Map<Key, string> | undefined;
    let below: Map<Key, NumberTexts> | undefined;
    for (;;) {
      const v = this.member();
      if (this.numberText !== undefined) (own ??= new Map()).set(out.length, this.numberText);
      if (this.texts !== undefined) (below ??= new Map()).set(out.length, this.texts);
      out.push(v);
      this.space();
      if (this.text.charCodeAt(this.i++) === 0x5d) break; // else ','
    }
    this.texts = NumberTexts.of(own, below);
    return out;
  }
}
