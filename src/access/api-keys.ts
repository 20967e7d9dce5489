/**
 * API keys (`access { api-key env="V" scopes="a b" }`): read from the environment at
 * start-up (a variable may hold several, comma-separated), kept only as SHA-256
 * digests, and compared in constant time against every key so the time taken says
 * nothing about which key, or how much of one, matched.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AccessDescriptor } from '../compiler/descriptor.js';
import type { Env } from '../process/env.js';
import type { Caller } from '../engine/caller.js';
import { StartupError } from '../process/startup-error.js';

interface StoredKey {
  readonly digest: Buffer;
  readonly caller: Caller;
}

export interface ApiKeys {
  match(token: string): Caller | undefined;
  /** The raw keys, for redaction of logs. */
  readonly secrets: readonly string[];
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function loadApiKeys(access: AccessDescriptor, env: Env): ApiKeys {
  const stored: StoredKey[] = [];
  const secrets: string[] = [];
  for (const entry of access.apiKeys) {
    const raw = env[entry.env];
    if (raw === undefined || raw.trim() === '') {
      throw new StartupError(
        `environment variable ${entry.env} is not set; the spec's \`access { api-key env="${entry.env}" }\` reads API keys from it`,
      );
    }
    const keys = raw
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    keys.forEach((key, i) => {
      secrets.push(key);
      // The key id names the variable and position, never any part of the key.
      stored.push({
        digest: digest(key),
        caller: Object.freeze({
          id: `api-key:${entry.env}#${i + 1}`,
          scopes: new Set(entry.scopes),
        }),
      });
    });
  }
  return {
    secrets,
    match(token) {
      const d = digest(token);
      let found: Caller | undefined;
      for (const k of stored) if (timingSafeEqual(d, k.digest) && !found) found = k.caller;
      return found;
    },
  };
}
