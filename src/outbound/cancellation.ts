/**
 * The caller going away, for a backend to stop waiting on its upstream. A small object
 * rather than an AbortSignal: a controller and its event listeners on every call showed
 * in profiles. It is no engine type: the MCP client (mcp-upstream/) and the HTTP
 * exchange wait on it as well, and they import nothing of the engine.
 */
export class Cancellation {
  private done = false;
  private listener: (() => void) | undefined = undefined;

  get cancelled(): boolean {
    return this.done;
  }

  /**
   * Runs `listener` once when the call is cancelled; `undefined` removes it. One at a
   * time: a call has one backend.
   */
  onCancel(listener: (() => void) | undefined): void {
    this.listener = listener;
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}
