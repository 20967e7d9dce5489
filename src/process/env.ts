/** The environment variables the gateway reads (process.env, or a test's own). */
export type Env = Readonly<Record<string, string | undefined>>;
