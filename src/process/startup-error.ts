/** A problem that must stop start-up (a missing credential variable, a bad bind address). */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
