/** A port on 127.0.0.1 that was free when asked. */
export function freePort(): Promise<number>;
