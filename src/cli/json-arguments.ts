/** The argument object of `call` and `prompt`: inline JSON, `@file`, `-` for stdin. */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../client/options.js';
import { readableError } from './output.js';

/** Inline JSON, `@file`, `-` for stdin, or nothing for `{}`. */
export async function readArguments(text: string | undefined): Promise<Record<string, unknown>> {
  if (text === undefined) return {};
  let where = 'the arguments';
  let json = text;
  if (text === '-') {
    where = 'the arguments on stdin';
    json = await readStdin();
  } else if (text.startsWith('@')) {
    const file = text.slice(1);
    where = `the arguments in ${file}`;
    try {
      json = await readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`${file}: ${readableError(err)}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new UsageError(`${where} are not JSON: ${readableError(err)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${where} are not a JSON object`);
  }
  return value as Record<string, unknown>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
