// The one pause of the bench, the soak and the process tests' polling loops.
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
