/**
 * `serve --workers N|auto`: the count asked for, and what `auto` reads — the affinity
 * and a container's CPU quota (cgroup v2 `cpu.max`, or v1's quota and period).
 */
import { describe, expect, it } from 'vitest';
import { cgroupCpus, parseWorkers, usableCpus } from '../../src/server/workers/worker-count.js';

const files =
  (table: Record<string, string>) =>
  (path: string): string | undefined =>
    table[path];

describe('--workers', () => {
  it('takes a whole number from 1 to 256, and auto as the CPUs the process may use', () => {
    expect(parseWorkers('1')).toBe(1);
    expect(parseWorkers('8')).toBe(8);
    expect(parseWorkers('auto', () => 3)).toBe(3);
    for (const bad of ['0', '-1', '1.5', '2x', '', '257', 'AUTO'])
      expect(parseWorkers(bad)).toMatch(/^--workers takes a whole number from 1 to 256, or auto/);
  });

  it('counts a cgroup v2 quota up to whole CPUs, and reads "max" as no quota', () => {
    expect(cgroupCpus(files({ '/sys/fs/cgroup/cpu.max': '200000 100000\n' }))).toBe(2);
    expect(cgroupCpus(files({ '/sys/fs/cgroup/cpu.max': '150000 100000\n' }))).toBe(2);
    expect(cgroupCpus(files({ '/sys/fs/cgroup/cpu.max': '50000 100000\n' }))).toBe(1);
    expect(cgroupCpus(files({ '/sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBeUndefined();
  });

  it('reads a cgroup v1 quota, where -1 means none, and no cgroup files as no quota', () => {
    const v1 = (quota: string) =>
      files({
        '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': quota,
        '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
      });
    expect(cgroupCpus(v1('400000'))).toBe(4);
    expect(cgroupCpus(v1('-1'))).toBeUndefined();
    expect(cgroupCpus(files({}))).toBeUndefined();
  });

  it('gives auto the smaller of the affinity and the quota, and at least one', () => {
    expect(usableCpus(64, 2)).toBe(2);
    expect(usableCpus(2, 8)).toBe(2);
    expect(usableCpus(4, undefined)).toBe(4);
    expect(usableCpus(0, undefined)).toBe(1);
  });
});
