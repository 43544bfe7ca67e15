/**
 * What a waiting call carries across continue-as-new, by call id: a modern-era round (`RoundWait`, rounds.ts) or an
 * MCP task (`TaskWait`, tasks.ts). The next run restores them and resumes each call where it waited. Pure state.
 */
export class CallWaits<T extends object> {
  private readonly waits = new Map<string, T>();

  get(callId: string): T | undefined {
    return this.waits.get(callId);
  }

  set(callId: string, wait: T): void {
    this.waits.set(callId, wait);
  }

  delete(callId: string): void {
    this.waits.delete(callId);
  }

  has(callId: string): boolean {
    return this.waits.has(callId);
  }

  /** The snapshot's entries (undefined when no call waits, so the field is left out). */
  snapshot(): Array<{ callId: string } & T> | undefined {
    return this.waits.size > 0 ? [...this.waits].map(([callId, w]) => ({ callId, ...w })) : undefined;
  }

  restore(entries: Array<{ callId: string } & T>): void {
    for (const { callId, ...w } of entries) this.waits.set(callId, w as unknown as T);
  }
}
