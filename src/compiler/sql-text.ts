/**
 * Reads a Postgres statement the way the server's lexer does, far enough to find
 * `$n` placeholders and statement separators outside string literals, quoted
 * identifiers, dollar-quoted bodies and comments (security.md, "SQL grants").
 */
export interface SqlScan {
  /** Placeholder numbers used, ascending, without repeats. */
  readonly placeholders: readonly number[];
  /** True when a second statement follows a `;`. */
  readonly multiple: boolean;
}

const IDENT_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

export function scanSql(sql: string): SqlScan {
  const found = new Set<number>();
  let multiple = false;
  let sawTerminator = false;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    let end: number;
    let meaningful = true;
    if (ch === '-' && next === '-') {
      end = sql.indexOf('\n', i);
      end = end < 0 ? n : end + 1;
      meaningful = false;
    } else if (ch === '/' && next === '*') {
      end = skipBlockComment(sql, i);
      meaningful = false;
    } else if (ch === "'") {
      const escapes = i > 0 && /[eE]/.test(sql[i - 1]!) && (i < 2 || !IDENT_CHAR.test(sql[i - 2]!));
      end = skipQuoted(sql, i, "'", escapes);
    } else if (ch === '"') {
      end = skipQuoted(sql, i, '"', false);
    } else if (ch === '$') {
      const prevIsIdent = i > 0 && IDENT_CHAR.test(sql[i - 1]!);
      const digits = /^\$(\d+)/.exec(sql.slice(i, i + 12));
      const tag = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i));
      if (!prevIsIdent && digits) {
        found.add(Number(digits[1]));
        end = i + digits[0].length;
      } else if (!prevIsIdent && tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        end = close < 0 ? n : close + tag[0].length;
      } else {
        end = i + 1;
      }
    } else if (ch === ';') {
      sawTerminator = true;
      meaningful = false;
      end = i + 1;
    } else {
      end = i + 1;
      meaningful = !isSpace(sql.charCodeAt(i));
    }
    if (meaningful && sawTerminator) multiple = true;
    i = end;
  }
  return { placeholders: [...found].sort((a, b) => a - b), multiple };
}

/**
 * `/\s/.test(ch)` for one UTF-16 unit: ECMAScript's WhiteSpace and LineTerminator
 * (tab to carriage return, the Zs spaces, LS, PS, BOM). Most of a statement is read
 * here one character at a time, and a regex test per character was a quarter of
 * checking a 250-statement spec at a cold start.
 */
function isSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function skipQuoted(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (backslashEscapes && ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  return sql.length;
}

function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth += 1;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else i += 1;
  }
  return sql.length;
}
