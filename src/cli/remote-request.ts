/**
 * One request to a remote server for `read` and `prompt`, with the exit codes of `call`:
 * the result, or 2 after one line when the server cannot be reached, answers the handshake
 * with an error or the request with an HTTP error (a missing scope is HTTP 403), or 1 after
 * one line when it answers the request itself with a JSON-RPC error (not found, a refused
 * argument or variable, an upstream failure): the counterpart of a tool's isError.
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { withConnection, type Connection } from '../client/connect.js';
import { clientErrorLine } from '../client/errors.js';
import type { RemoteOptions } from '../client/options.js';

class Refused {
  constructor(readonly error: ProtocolError) {}
}

export async function requestOrExit<T>(
  options: RemoteOptions,
  ask: (c: Connection) => Promise<T>,
): Promise<{ answer: T } | number> {
  let answer: T | Refused;
  try {
    answer = await withConnection(options, async (c) => {
      try {
        return await ask(c);
      } catch (err) {
        if (err instanceof ProtocolError) return new Refused(err);
        throw err;
      }
    });
  } catch (err) {
    process.stderr.write(`${clientErrorLine(options.url, err, options.timeoutMs)}\n`);
    return 2;
  }
  if (answer instanceof Refused) {
    process.stderr.write(`${clientErrorLine(options.url, answer.error, options.timeoutMs)}\n`);
    return 1;
  }
  return { answer };
}
