/**
 * Which of durable-mcp's search attributes the namespace has: the worker's workflows keep DurableMcpAwaitingInput
 * current only where it is registered (upserting an unregistered attribute would fail workflow tasks), and the
 * listing's others (servers, kinds, next expiry, resolved at) likewise, all or none.
 */
import { registeredSearchAttributes } from '../client/connection.js';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE, SEARCH_ATTRIBUTES } from '../workflows/visibility.js';

export interface RegisteredAttributes {
  /** DurableMcpAwaitingInput is registered. */
  searchAttribute: boolean;
  /** Every attribute of the listing (SEARCH_ATTRIBUTES) is registered. */
  listing: boolean;
}

export async function registeredAttributes(connection: Parameters<typeof registeredSearchAttributes>[0], namespace: string): Promise<RegisteredAttributes> {
  const registered = await registeredSearchAttributes(connection, namespace);
  return { searchAttribute: registered.has(AWAITING_INPUT_SEARCH_ATTRIBUTE), listing: SEARCH_ATTRIBUTES.every((a) => registered.has(a.name)) };
}
