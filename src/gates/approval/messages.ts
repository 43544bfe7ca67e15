/** The approval gate's messages (docs/approvals.md): what a call a person approved runs with. Pure types. */

/** A call a person approved: the arguments it runs, what the activity checks them against, and the result's metadata. */
export interface Approved {
  args: Record<string, unknown>;
  approved: { id: string; digest: string };
  metadata: Record<string, unknown>;
}
