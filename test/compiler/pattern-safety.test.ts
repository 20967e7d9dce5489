import { describe, expect, it } from 'vitest';
import { checkPattern } from '../../src/compiler/pattern-safety.js';

describe('pattern safety', () => {
  it.each([
    '^[a-z0-9._-]{1,100}$',
    '^cus_[A-Za-z0-9]{1,64}$',
    '^(open|closed)$',
    '^(ab)+$',
    '^(a|b)?c*$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    '^[(]+$',
    '^\\(a+\\)+$',
    '^(?:x{1})+$',
    '^(?<year>\\d{4})$',
    '^[A-Z]+[0-9]+$',
    '^\\d+\\.\\d+$',
    '^[^@]+@[^@]+$',
    '^a*b*$',
  ])('accepts the linear pattern %s', (p) => {
    expect(checkPattern(p)).toEqual({ ok: true });
  });

  it.each([
    ['^(a+)+$', 'nested'],
    ['^(a*)*b$', 'nested'],
    ['^((ab)*c)+$', 'nested'],
    ['^(?:[a-z]+\\.)*com$', 'nested'],
    ['^(x{2,})*$', 'nested'],
    ['^(a+){2,5}$', 'nested'],
    ['^(a|a)*$', 'alternatives'],
    ['^(\\w|\\d)+$', 'alternatives'],
    ['^(a|ab)*c$', 'alternatives'],
    ['^[a-z]*[a-z]*[a-z]*!$', 'polynomial'],
    ['^\\w+\\d+$', 'polynomial'],
    ['^.*.*=.*$', 'polynomial'],
    ['^(a)\\1$', 'backreference'],
    ['^(?<q>a)\\k<q>$', 'backreference'],
  ])('refuses the super-linear pattern %s', (p, why) => {
    const r = checkPattern(p);
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.unsafe).toBe(true);
    expect(r.ok === false && r.reason).toContain(why);
  });

  it('refuses a pattern that does not compile, without calling it unsafe', () => {
    const r = checkPattern('^[a-z$');
    expect(r).toMatchObject({ ok: false, unsafe: false });
  });

  it('compiles patterns with the u flag, as ajv does', () => {
    expect(checkPattern('^\\p{L}+$')).toEqual({ ok: true });
    expect(checkPattern('^a{$').ok).toBe(false);
  });
});
