/**
 * The set-up most capability suites share, around a recording upstream on 127.0.0.1:0:
 * the real gateway serving a spec written against it (one start, one stop, so a suite
 * names only its spec, its answer and its environment), and the upstream alone for suites
 * whose gateways come and go per case. The `use…` forms are the suite's hooks.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startGateway, type GatewayOptions, type TestGateway } from './gateway.js';
import { echoJson, startUpstream, type Upstream, type UpstreamHandler } from './upstream.js';

export interface GatewayOnUpstream {
  readonly upstream: Upstream;
  readonly gw: TestGateway;
  /** Closes the gateway, then the upstream. */
  stop(): Promise<void>;
}

export interface GatewayOnUpstreamOptions extends GatewayOptions {
  /** What the upstream answers; `echoJson` by default. */
  readonly answer?: UpstreamHandler;
}

/** Starts a gateway whose spec is written against the upstream at `upstreamUrl`. */
export type StartOnUpstream = (upstreamUrl: string) => Promise<TestGateway>;

/** The upstream, then the gateway `start` makes on it; the upstream is closed if that fails. */
export async function startOnUpstream(
  start: StartOnUpstream,
  answer: UpstreamHandler = echoJson,
): Promise<GatewayOnUpstream> {
  const upstream = await startUpstream(answer);
  let gw: TestGateway;
  try {
    gw = await start(upstream.url);
  } catch (err) {
    // A spec that does not compile must not leave the upstream listening.
    await upstream.close();
    throw err;
  }
  return {
    upstream,
    gw,
    async stop() {
      try {
        await gw.close();
      } finally {
        await upstream.close();
      }
    },
  };
}

export function startGatewayOnUpstream(
  spec: (upstreamUrl: string) => string,
  opts: GatewayOnUpstreamOptions = {},
): Promise<GatewayOnUpstream> {
  const { answer, ...gatewayOptions } = opts;
  return startOnUpstream((url) => startGateway(spec(url), gatewayOptions), answer);
}

export interface SuiteHookOptions {
  /** Empty the upstream's record before each test, so each counts only its own requests. */
  readonly forgetEach?: boolean;
  /** The start's bound, where a suite's spec is slow to compile. */
  readonly startTimeoutMs?: number;
}

/**
 * `startOnUpstream` as a suite's hooks: both start before the suite (handed to `take`,
 * which keeps them in the suite's own variables) and stop after it.
 */
export function useOnUpstream(
  start: StartOnUpstream,
  opts: SuiteHookOptions & { readonly answer?: UpstreamHandler },
  take: (started: GatewayOnUpstream) => void,
): void {
  let started: GatewayOnUpstream | undefined;
  beforeAll(async () => {
    started = await startOnUpstream(start, opts.answer);
    take(started);
  }, opts.startTimeoutMs);
  afterAll(() => started?.stop());
  if (opts.forgetEach) {
    beforeEach(() => {
      if (started) started.upstream.requests.length = 0;
    });
  }
}

export interface UseGatewayOnUpstreamOptions extends GatewayOnUpstreamOptions, SuiteHookOptions {}

/** `startGatewayOnUpstream` as a suite's hooks, like `useOnUpstream`. */
export function useGatewayOnUpstream(
  spec: (upstreamUrl: string) => string,
  opts: UseGatewayOnUpstreamOptions,
  take: (started: GatewayOnUpstream) => void,
): void {
  const { forgetEach, startTimeoutMs, answer, ...gatewayOptions } = opts;
  useOnUpstream(
    (url) => startGateway(spec(url), gatewayOptions),
    { answer, forgetEach, startTimeoutMs },
    take,
  );
}

/**
 * The upstream for a suite whose gateways come and go per case: started before the suite
 * (handed to `take`), its record emptied before each test, closed after the suite.
 */
export function useUpstream(answer: UpstreamHandler, take: (upstream: Upstream) => void): void {
  let upstream: Upstream | undefined;
  beforeAll(async () => {
    upstream = await startUpstream(answer);
    take(upstream);
  });
  afterAll(() => upstream?.close());
  beforeEach(() => {
    if (upstream) upstream.requests.length = 0;
  });
}
