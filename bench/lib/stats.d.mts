export interface Stats {
  median: number;
  min: number;
  max: number;
}
export function stats(xs: readonly unknown[]): Stats | undefined;
export function median(xs: readonly number[]): number | undefined;
export function percentile(xs: readonly number[], p: number): number | undefined;
export const f0: (x: number | undefined) => string;
export const f1: (x: number | undefined) => string;
export const f2: (x: number | undefined) => string;
export const range: (s: Stats | undefined, f: (x: number) => string) => string;
