// One window of closed-loop load: autocannon in its own process (bench/load.mjs),
// with the server's CPU time read from /proc before and after, so that CPU per
// request is the server's own, whatever else the machine is doing.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './proc.mjs';
import { runJson } from './processes.mjs';

const LOAD = join(dirname(dirname(fileURLToPath(import.meta.url))), 'load.mjs');

/**
 * `request` is {url, method?, headers, body?}; `rate` paces it (requests a second). A window with any non-2xx answer,
 * error or timeout throws: a figure over failed requests would flatter the subject.
 */
export async function loadWindow(request, { connections, duration, serverPid, cpu, what, rate }) {
  const cfg = { ...request, connections, duration, ...(rate !== undefined && { rate }) };
  const cpu0 = serverPid && cpuMs(serverPid);
  const r = await runJson(['node', LOAD, JSON.stringify(cfg)], { cpu }, 'load generator');
  const cpu1 = serverPid && cpuMs(serverPid);
  if (r.errors || r.timeouts || r.non2xx)
    throw new Error(`${what}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  return {
    ...r,
    cpuUsPerReq: cpu0 !== undefined && r.total ? ((cpu1 - cpu0) * 1000) / r.total : undefined,
  };
}

/** One answer of `request`, checked: status 200 and a body `expect` matches. */
export async function verifyAnswer(request, expect, what) {
  const { url, method = 'POST', headers = {}, body } = request;
  const res = await fetch(url, { method, headers, ...(body !== undefined && { body }) });
  const text = await res.text();
  if (res.status !== 200 || !expect.test(text))
    throw new Error(`${what}: unexpected answer ${res.status} ${text.slice(0, 300)}`);
  return text;
}
