/**
 * Walking an error's `cause` chain (Temporal wraps a failure in the failure that carried it: an update's
 * failure in a `WorkflowUpdateFailedError`, an activity's in an `ActivityFailure`, a gRPC error in a client
 * error). Pure; every plane reads causes through these two functions.
 */

/** An error and its causes, outermost first: at most `depth` entries, ending at the first missing cause. */
export function causeChain(err: unknown, depth = 5): Array<{ code?: unknown; message?: unknown; cause?: unknown }> {
  const out: Array<{ code?: unknown; message?: unknown; cause?: unknown }> = [];
  for (let e = err as { cause?: unknown } | undefined; e && out.length < depth; e = e.cause as typeof e) out.push(e);
  return out;
}

/** The messages of an error and its causes (the first five), joined by ": ". */
export function causeMessages(err: unknown): string {
  return causeChain(err)
    .filter((e) => e.message)
    .map((e) => String(e.message))
    .join(': ');
}
