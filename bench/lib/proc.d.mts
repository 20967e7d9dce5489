export const MB: number;
export function statFields(pid: number | string): string[] | undefined;
export function cpuMs(pid: number, options?: { children?: boolean }): number | undefined;
export function cpuNs(pid: number): number;
export function statusKb(pid: number, key: string): number | undefined;
export function rssMb(pid: number): number | undefined;
export interface ProcStatus {
  /** Resident set now, in bytes. */
  readonly rss: number;
  /** Peak resident set since start or the last resetPeak, in bytes. */
  readonly hwm: number;
  readonly fds: number;
}
export function procStatus(pid: number): ProcStatus | undefined;
export function resetPeak(pid: number): void;
export function isAlive(pid: number): boolean;
export function processTree(pid: number): number[];
