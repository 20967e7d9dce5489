/**
 * The admission gate in front of a connection pool, as pure logic on fake timers
 * (performance.now included): who starts, who waits, who is refused and when.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Cancellation } from '../../src/outbound/cancellation.js';
import {
  ADMITTED,
  ConnectionGate,
  type GateEntry,
} from '../../src/engine/backends/upstream/connection-gate.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** What a promise came to so far (undefined while pending). */
function track(entry: GateEntry | Promise<GateEntry>): { value: GateEntry | undefined } {
  const box: { value: GateEntry | undefined } = { value: undefined };
  if (entry instanceof Promise) void entry.then((v) => (box.value = v));
  else box.value = entry;
  return box;
}

const call = { budgetMs: 1_000, mustFinish: true };

/** Teaches the gate a service time: `n` calls that each held a connection `ms`. */
function teach(gate: ConnectionGate, ms: number, n = 20): void {
  for (let i = 0; i < n; i++) {
    expect(gate.enter(call)).toBe(ADMITTED);
    gate.leave(ms);
  }
}

describe('connection gate', () => {
  it('admits at once, without a promise, while a connection is free', () => {
    const gate = new ConnectionGate(2);
    expect(gate.enter(call)).toBe(ADMITTED);
    expect(gate.enter(call)).toBe(ADMITTED);
    expect(gate.inService).toBe(2);
  });

  it('before anything was measured, lets at most as many calls wait as there are connections', async () => {
    const gate = new ConnectionGate(2);
    gate.enter(call);
    gate.enter(call);
    const waiting = [track(gate.enter(call)), track(gate.enter(call))];
    const third = gate.enter(call);
    expect(third).toMatchObject({ kind: 'shed', slots: 2, waiting: 2 });
    expect(gate.waiting).toBe(2);
    gate.leave(100);
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.map((w) => w.value)).toEqual([ADMITTED, undefined]);
  });

  it('refuses on arrival a call that could not start in time to finish within its deadline', () => {
    const gate = new ConnectionGate(2);
    teach(gate, 200);
    const s = gate.serviceEstimateMs!;
    const t = gate.smoothedServiceMs!;
    expect(s).toBeGreaterThanOrEqual(t);
    gate.enter(call);
    gate.enter(call);
    // Position q starts after about ceil((q + 1) / 2) × t and must then finish within s.
    let fit = 0;
    while (Math.ceil((fit + 1) / 2) * t + s <= 1_000) fit += 1;
    expect(fit).toBeGreaterThan(0);
    const entries = Array.from({ length: fit + 1 }, () => gate.enter(call));
    expect(entries.slice(0, fit).every((e) => e instanceof Promise)).toBe(true);
    expect(entries[fit]).toMatchObject({ kind: 'shed' });
  });

  it('refuses a waiting call the moment its latest start passes, not at its deadline', async () => {
    const gate = new ConnectionGate(1);
    teach(gate, 300);
    const s = gate.serviceEstimateMs!;
    gate.enter(call);
    const w = track(gate.enter(call));
    await vi.advanceTimersByTimeAsync(1_000 - s - 1);
    expect(w.value).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    expect(w.value).toMatchObject({ kind: 'shed', retryAfter: 1 });
    expect(gate.waiting).toBe(0);
  });

  it('hands a freed connection to the first waiter that can still make it', async () => {
    const gate = new ConnectionGate(1);
    teach(gate, 100);
    gate.enter(call);
    const first = track(gate.enter(call));
    const second = track(gate.enter(call));
    gate.leave(100);
    await vi.advanceTimersByTimeAsync(0);
    expect(first.value).toBe(ADMITTED);
    expect(second.value).toBeUndefined();
    gate.leave(100);
    await vi.advanceTimersByTimeAsync(0);
    expect(second.value).toBe(ADMITTED);
    expect(gate.inService).toBe(1);
  });

  it('refuses, when a connection frees, a waiter that the upstream has since become too slow for', async () => {
    const gate = new ConnectionGate(1);
    teach(gate, 100);
    gate.enter(call);
    const w = track(gate.enter(call));
    // The call in service took 900 ms: the estimate grows past what the waiter has left.
    await vi.advanceTimersByTimeAsync(500);
    gate.leave(900);
    await vi.advanceTimersByTimeAsync(0);
    expect(w.value).toMatchObject({ kind: 'shed' });
    expect(gate.inService).toBe(0);
  });

  it('lets a waiting call whose budget is only for the wait (a pool checkout) start late', async () => {
    const gate = new ConnectionGate(1);
    teach(gate, 300);
    gate.enter(call);
    const w = track(gate.enter({ budgetMs: 1_000, mustFinish: false }));
    await vi.advanceTimersByTimeAsync(900);
    gate.leave(900);
    await vi.advanceTimersByTimeAsync(0);
    expect(w.value).toBe(ADMITTED);
  });

  it('takes a cancelled waiter out of the queue', async () => {
    const gate = new ConnectionGate(1);
    gate.enter(call);
    const cancel = new Cancellation();
    const w = track(gate.enter({ ...call, cancel }));
    cancel.cancel();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.value).toEqual({ kind: 'cancelled' });
    expect(gate.waiting).toBe(0);
    expect(gate.enter({ ...call, cancel })).toEqual({ kind: 'cancelled' });
  });

  it('still sends a call when a connection is free, however slow the upstream was', () => {
    const gate = new ConnectionGate(1);
    teach(gate, 5_000);
    expect(gate.enter(call)).toBe(ADMITTED);
  });
  it('lets an admitted call go out only while its service time still fits before its deadline', () => {
    const gate = new ConnectionGate(4);
    teach(gate, 200);
    gate.enter(call);
    gate.enter(call);
    const deadline = performance.now() + 1_000;
    expect(gate.mayStart(deadline, 1_000)).toBe(true);
    // The loop was busy: the request reaches the wire 900 ms into its 1 s budget.
    vi.advanceTimersByTime(900);
    expect(gate.mayStart(deadline, 1_000)).toBe(false);
  });

  it('before anything was measured, lets an admitted call go out only with half its budget left', () => {
    const gate = new ConnectionGate(4);
    gate.enter(call);
    gate.enter(call);
    const deadline = performance.now() + 1_000;
    vi.advanceTimersByTime(400);
    expect(gate.mayStart(deadline, 1_000)).toBe(true);
    vi.advanceTimersByTime(200);
    expect(gate.mayStart(deadline, 1_000)).toBe(false);
  });

  it('lets the one call in service go out to an upstream too slow for any call, to learn of a recovery', () => {
    const gate = new ConnectionGate(4);
    teach(gate, 5_000);
    gate.enter(call);
    const deadline = performance.now() + 1_000;
    expect(gate.mayStart(deadline, 1_000)).toBe(true);
    gate.enter(call);
    expect(gate.mayStart(deadline, 1_000)).toBe(false);
  });
});
