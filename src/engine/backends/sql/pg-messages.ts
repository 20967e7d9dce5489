/**
 * Frontend messages that do not depend on a call's values (Postgres protocol 3.0,
 * "Message Formats"), for tx-query.ts to encode once per process: a call's BEGIN,
 * SET LOCAL and COMMIT are the same bytes every time, so they are written as ready
 * buffers instead of being serialized by pg message by message on every call.
 */

/** A message: type byte, int32 length (itself included), body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (s: string): Buffer => Buffer.from(`${s}\0`, 'utf8');
const int16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/** Parse of a statement without parameters (no parameter types given). */
export function parse(name: string, text: string): Buffer {
  return message('P', Buffer.concat([cstring(name), cstring(text), int16(0)]));
}

/** Bind of a parameterless statement to the unnamed portal, text results. */
export function bind(statement: string): Buffer {
  return message(
    'B',
    Buffer.concat([cstring(''), cstring(statement), int16(0), int16(0), int16(0)]),
  );
}

/** Execute the unnamed portal to completion. */
export const EXECUTE = message('E', Buffer.concat([cstring(''), int32(0)]));

export const SYNC = message('S', Buffer.alloc(0));
