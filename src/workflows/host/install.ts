/**
 * The one elicitation host of a workflow (index.ts) with its message handlers (handlers.ts): installed once per
 * workflow execution, before any call. Deterministic: workflow APIs only.
 */
import { installHandlers } from './handlers.js';
import { ElicitationHost, type HostSnapshot } from './index.js';

let host: ElicitationHost | undefined;

/**
 * Install the workflow's elicitation host, with the state a previous run carried (`snapshot`), and its handlers.
 * Once per workflow execution, before any call: installing it twice fails the workflow task (a bug, never replayed).
 */
export function installElicitationHost(snapshot?: HostSnapshot): ElicitationHost {
  if (host) throw new Error('the elicitation host is already installed in this workflow: install it once, at the start, before any tool call');
  host = new ElicitationHost(snapshot);
  installHandlers(host);
  return host;
}

/** The workflow's elicitation host: the one installed, or a new empty one on first use (a workflow that carries none). */
export function useElicitationHost(): ElicitationHost {
  return host ?? installElicitationHost();
}
