/** Bundles src/cli/main.ts into `outdir` (main.js and its chunks); see cli-bundle.mjs. */
export function bundleCli(options: { outdir: string; script: string }): Promise<void>;
