/**
 * The login gate's messages: the outcome of a call (or a task's watch, or a listing) whose server behind OAuth needs a
 * (new) token. Its JSON shape is recorded in histories: it never changes. Pure types.
 */
import type { LoginWanted } from '../../contract/login.js';
import type { WorkerFeatures } from '../../contract/worker-features.js';

/**
 * A server behind OAuth needs a (new) access token: the call had none, it expired, or the server refused it. Nothing is
 * held; the workflow asks the login (`requestLogin`) and runs the call again once the login settles.
 */
export interface CallMcpToolLoginRequired extends WorkerFeatures {
  status: 'login_required';
  /** The login wanted (contract/login.ts), and the login's workflow id. */
  login: LoginWanted & { loginId: string };
}
