/**
 * The set-up the sql suites share: the run's Postgres locked for this file, a fresh
 * schema seeded, and the real gateway serving a spec whose `database env="DATABASE_URL"`
 * points at that schema. Stopping closes the gateway, drops the schema and releases the
 * lock, whatever fails on the way.
 */
import { startGateway, type GatewayOptions, type TestGateway } from './gateway.js';
import { createTestSchema, lockSharedPostgres, type TestSchema } from './postgres.js';

export interface GatewayOnSchema {
  readonly schema: TestSchema;
  readonly gw: TestGateway;
  stop(): Promise<void>;
}

export interface GatewayOnSchemaOptions extends GatewayOptions {
  /** How long to wait for another file's lock; two minutes by default. */
  readonly lockTimeoutMs?: number;
}

export async function startGatewayOnSchema(
  seedSql: string,
  spec: string,
  opts: GatewayOnSchemaOptions = {},
): Promise<GatewayOnSchema> {
  const { lockTimeoutMs = 120_000, env, ...gatewayOptions } = opts;
  // A restart or a pool limit in one file must not meet another file's calls: hold the lock.
  const unlock = await lockSharedPostgres(lockTimeoutMs);
  let schema: TestSchema | undefined;
  let gw: TestGateway | undefined;
  const stop = async (): Promise<void> => {
    try {
      await gw?.close();
      await schema?.drop();
    } finally {
      await unlock();
    }
  };
  try {
    schema = await createTestSchema(seedSql);
    gw = await startGateway(spec, {
      ...gatewayOptions,
      env: { ...env, DATABASE_URL: schema.url },
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { schema, gw, stop };
}
