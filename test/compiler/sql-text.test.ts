import { describe, expect, it } from 'vitest';
import { scanSql } from '../../src/compiler/sql-text.js';

describe('scanning SQL for placeholders and statements', () => {
  it('finds placeholders in order without repeats', () => {
    expect(scanSql('SELECT * FROM t WHERE a = $2 AND b = $1 OR c = $2').placeholders).toEqual([
      1, 2,
    ]);
  });

  it('does not count $n inside strings, quoted identifiers, comments or dollar quotes', () => {
    const sql = `SELECT '$1', "col$2", E'it\\'s $3', $$ $4 $$, $tag$ $5 $tag$ -- $6
      /* $7 /* nested $8 */ still $9 */ FROM t WHERE x = $10`;
    expect(scanSql(sql).placeholders).toEqual([10]);
  });

  it('does not treat identifiers containing $ as placeholders', () => {
    expect(scanSql('SELECT a$1 FROM t').placeholders).toEqual([]);
  });

  it('allows one trailing semicolon and trailing comments', () => {
    expect(scanSql('SELECT 1; -- done\n').multiple).toBe(false);
    expect(scanSql('SELECT 1;  /* end */  ').multiple).toBe(false);
  });

  it('counts as blank after a semicolon exactly the characters JavaScript calls whitespace', () => {
    const differ: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const ch = String.fromCharCode(code);
      if (ch !== ';' && scanSql(`SELECT 1;${ch}`).multiple === /\s/.test(ch))
        differ.push(`U+${code.toString(16)}`);
    }
    expect(differ).toEqual([]);
  });

  it('sees a second statement after a semicolon', () => {
    expect(scanSql('SELECT 1; DROP TABLE orders').multiple).toBe(true);
    expect(scanSql("SELECT ';'; SELECT 2").multiple).toBe(true);
  });

  it('ignores semicolons inside literals', () => {
    expect(scanSql("SELECT 'a;b', $$;$$").multiple).toBe(false);
  });

  it('handles casts and doubled quotes', () => {
    expect(scanSql("SELECT $1::int, 'it''s $2' FROM t WHERE y = $2").placeholders).toEqual([1, 2]);
  });
});
