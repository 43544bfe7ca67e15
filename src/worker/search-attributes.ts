/**
 * Which of durable-mcp's search attributes the namespace has: the worker's workflows keep DurableMcpAwaitingInput
 * current only where it is registered (upserting an unregistered attribute would fail workflow tasks), and the
 * listing's others (servers, kinds, next expiry, resolved at) likewise, all or none.
 */
import { registeredSearchAttributes } from '../client/connection.js';
import { AWAITING_INPUT_SEARCH_ATTRIBUTE, SEARCH_ATTRIBUTES, type RegisteredSearchAttributes } from '../workflows/visibility.js';

export async function registeredAttributes(
  connection: Parameters<typeof registeredSearchAttributes>[0],
  namespace: string,
): Promise<RegisteredSearchAttributes> {
  const registered = await registeredSearchAttributes(connection, namespace);
  if (!registered.has(AWAITING_INPUT_SEARCH_ATTRIBUTE)) return 'none';
  return SEARCH_ATTRIBUTES.every((a) => registered.has(a.name)) ? 'listing' : 'awaiting';
}
