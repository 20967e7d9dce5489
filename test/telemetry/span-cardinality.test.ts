/**
 * Issue 37: a name the caller chose is never a span name or an attribute. Before, every
 * unknown tool or method a caller sent became a span name of its own (50 random names, 50
 * span names), which grows a tracing backend's name index without bound and carries the
 * caller's text into the trace. A real OTLP receiver (otlp-receiver.ts) decodes what the
 * real SDK exported: random unknown tools, prompts, methods, protocol versions and REST
 * routes give a handful of span names and attribute values, none of them a random name,
 * while a known tool keeps `tools/call <tool>`.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postToolCall } from '../helpers/call-tool.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import { KIND, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const SPEC = (baseUrl: string): string => `
wrap "span-cardinality" version="1.0.0"
base-url "${baseUrl}"
can get thing {
    describe "One thing."
    path "/things/{id}" {
        id "string"
    }
}
prompt "triage" {
    describe "Triage something."
    message "user" "Triage it."
}
`;

/** A name no spec has, distinctive enough that finding it in a span is a leak. */
const random = (): string => `zq${randomBytes(6).toString('hex')}`;

let upstream: Upstream;
let receiver: OtlpReceiver;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  receiver = await startOtlpReceiver();
  gw = await startGateway(SPEC(upstream.url), {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  });
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
  await upstream?.close();
});

/** One 2026-07-28 JSON-RPC request of `method`, its headers mirroring it. */
function rpc(method: string, params: Record<string, unknown>, version = MODERN) {
  return postJson(
    `${gw.url}/mcp`,
    {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: { ...params, _meta: { [META_VERSION]: version, [META_CAPS]: {} } },
    },
    {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      'mcp-method': method,
    },
  );
}

describe('span names and attributes with names the caller chose', () => {
  it('keeps unknown tools, prompts, methods, versions and REST tools out of every span, in a bounded set of names', async () => {
    const sent: string[] = [];
    for (let i = 0; i < 50; i++) {
      const tool = random();
      sent.push(tool);
      expect((await postToolCall(gw.url, tool, {})).status).toBe(200);
    }
    for (let i = 0; i < 10; i++) {
      const [area, verb, prompt, version, restTool] = [
        random(),
        random(),
        random(),
        random(),
        random(),
      ];
      const method = `${area}/${verb}`;
      sent.push(area, verb, prompt, version, restTool);
      await rpc(method, {});
      await rpc('prompts/get', { name: prompt });
      await rpc('tools/list', {}, `2099-${version}`);
      await postJson(`${gw.url}/api/${restTool}`, {});
    }
    // Known names keep their span names.
    expect((await postToolCall(gw.url, 'get_thing', { id: '7' })).json).toMatchObject({
      result: { isError: false },
    });
    await rpc('prompts/get', { name: 'triage' });

    const expected = 50 + 4 * 10 + 2;
    const spans = (
      await receiver.waitForSpans(
        (all) => all.filter((s) => s.kind === KIND.server).length >= expected,
      )
    ).filter((s) => s.kind === KIND.server);
    expect(spans).toHaveLength(expected);

    const names = new Set(spans.map((s) => s.name));
    expect([...names].sort()).toEqual([
      'POST /api/{tool}',
      'other',
      'prompts/get',
      'prompts/get triage',
      'tools/call',
      'tools/call get_thing',
      'tools/list',
    ]);
    // Every attribute but the request id (one per request by design) has few values.
    const values = new Map<string, Set<string>>();
    for (const span of spans)
      for (const [key, value] of Object.entries(span.attributes))
        if (key !== 'jsonrpc.request.id')
          values.set(key, (values.get(key) ?? new Set()).add(String(value)));
    const many = [...values].filter(([, seen]) => seen.size > 5).map(([key]) => key);
    expect(many).toEqual([]);

    const exported = JSON.stringify(receiver.spans);
    const leaked = sent.filter((name) => exported.includes(name));
    expect(leaked).toEqual([]);
    const known = spans.find((s) => s.name === 'tools/call get_thing')!;
    expect(known.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_thing',
    });
    const prompt = spans.find((s) => s.name === 'prompts/get triage')!;
    expect(prompt.attributes).toMatchObject({ 'gen_ai.prompt.name': 'triage' });
  });
});
