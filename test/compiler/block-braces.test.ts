import { describe, expect, it } from 'vitest';
import { braceMistake } from '../../src/compiler/block-braces.js';
import { unterminatedString } from '../../src/compiler/open-string.js';

// The braces are counted as KDL 2 reads the text: those in strings and comments are no
// braces (spec-language.md, "Load errors").

describe('braces in comments and strings are not counted', () => {
  it.each([
    ['a quoted string', 'a "}{" "\\"}" {\n}\n'],
    ['a raw string, whose quote and # do not end it early', 'a #"}"# ##"x"#}"## {\n}\n'],
    ['a multi-line string', 'a """\n  {\n  \\"""{\n  """ {\n}\n'],
    ['a raw multi-line string', 'a #"""\n  }\n  """# {\n}\n'],
    ['a line comment', 'a { // }\n}\n'],
    ['a nested block comment', 'a { /* } /* } */ { */\n}\n'],
    ['a string whose escaped line break continues it', 'a "x\\\n   }" {\n}\n'],
  ])('in %s', (_, text) => {
    expect(braceMistake(text)).toBeUndefined();
  });

  it('leaves a string open to the end of the file to the parser: it hides the braces below', () => {
    expect(braceMistake('a {\n  b #"x\n}\n')).toBeUndefined();
    expect(braceMistake('a {\n  b """\n}\n')).toBeUndefined();
  });

  it('counts the braces of a slashdashed node, which the parser reads too', () => {
    expect(braceMistake('/-a {\n  b "x"\n')).toMatchObject({
      code: 'SPEC_UNCLOSED_BLOCK',
      at: { line: 1, column: 1 },
      message:
        '`/-a` opens a block at 1:5 that is never closed: the file ends at 3:1 with a block open',
    });
  });
});

describe('the node that opens a block left open', () => {
  it('starts after a semicolon, on the same line', () => {
    expect(braceMistake('a; b "x" {\n')).toMatchObject({
      at: { line: 1, column: 4 },
      message: expect.stringMatching(/^`b "x"` opens a block at 1:10 /),
    });
  });

  it('goes on over a line continuation', () => {
    expect(braceMistake('can list \\\n    issues {\n')).toMatchObject({
      at: { line: 1, column: 1 },
      message: expect.stringMatching(/^`can list issues` opens a block at 2:12 /),
    });
  });

  it('is the innermost one when the indentation gives no clue', () => {
    expect(braceMistake('a {\nb {\nc {\n}\n')).toMatchObject({
      at: { line: 2, column: 1 },
      message:
        '`b` opens a block at 2:3 that is never closed: the file ends at 5:1 with 2 blocks open',
    });
  });

  it('is not blamed on a block the indentation disagrees with but that is closed', () => {
    expect(braceMistake('a {\n    b {\n  }\n}\nc {\n')).toMatchObject({
      at: { line: 5, column: 1 },
      message: expect.stringMatching(/^`c` opens a block/),
    });
  });
});

describe('a string left open', () => {
  it('is found at its opening quote, past strings that close', () => {
    expect(unterminatedString('a "x" #"y"#\nb "open\nc "z"\n')).toEqual({ line: 2, column: 3 });
  });

  it('is not a string whose escaped line break continues it', () => {
    expect(unterminatedString('a "x\\\n  y"\n')).toBeUndefined();
  });
});
