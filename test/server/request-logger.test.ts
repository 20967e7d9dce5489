import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogger } from '../../src/server/request-logger.js';

function capture(level: string) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
  // No timestamp: two loggers' lines compare byte for byte.
  const logger = pino({ level, base: { service: 'test' }, timestamp: false }, stream);
  return { logger, lines };
}

describe('the request logger made on first use', () => {
  it('writes the same lines as an eager pino child with the same bindings', () => {
    const eager = capture('info');
    const lazy = capture('info');
    const a = eager.logger.child({ reqId: 'r-1' });
    const b = lazyRequestLogger(lazy.logger, { reqId: 'r-1' }, {});
    for (const log of [a, b]) {
      log.info({ path: '/mcp', status: 200 }, 'request');
      log.warn('plain %s', 'message');
      log.error({ err: new Error('boom') }, 'failed');
      log.debug('below the level');
      log.child({ sub: 1 }).info('from a grandchild');
    }
    expect(lazy.lines).toEqual(eager.lines);
    expect(lazy.lines).toHaveLength(4);
    expect(JSON.parse(lazy.lines[0]!)).toMatchObject({ reqId: 'r-1', path: '/mcp' });
  });

  it('writes nothing below its level and reports the level of its parent', () => {
    const { logger, lines } = capture('warn');
    const log = lazyRequestLogger(logger, { reqId: 'r-2' }, {});
    log.info('dropped');
    log.debug('dropped');
    expect(lines).toEqual([]);
    expect(log.level).toBe('warn');
    log.warn('kept');
    expect(JSON.parse(lines[0]!)).toMatchObject({ reqId: 'r-2', msg: 'kept', level: 40 });
  });

  it('is an eager child when the route sets options of its own', () => {
    const { logger, lines } = capture('warn');
    const log = lazyRequestLogger(logger, { reqId: 'r-3' }, { level: 'info' });
    expect(log.level).toBe('info');
    log.info('kept at the route level');
    expect(JSON.parse(lines[0]!)).toMatchObject({ reqId: 'r-3', level: 30 });
  });
});
