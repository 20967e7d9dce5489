export function sleep(ms: number): Promise<void>;
