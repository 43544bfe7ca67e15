/**
 * Bounds of durable-mcp's web servers (the inbox, the codec server): who a client is (its address), a rate per client
 * (token buckets, in bounded memory), a cap on the connections a client holds open, and a body limit on every POST.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The client's address as the socket says (never a header a client could set): an IPv6 address counts by its /64, the
 * block one host usually holds. `unknown` where the adapter does not say (every such request then shares one budget).
 */
export function clientAddress(c: Context): string {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    address = undefined;
  }
  if (!address) return 'unknown';
  if (address.startsWith('::ffff:')) return address.slice(7);
  if (!address.includes(':')) return address;
  const groups = address.split('::')[0]!.split(':');
  return `${groups.slice(0, 4).join(':')}::/64`;
}

export interface RateOptions {
  /** Requests a client may make at once. */
  burst: number;
  /** Requests a client regains each second. */
  perSecond: number;
  /** Clients remembered at most (the oldest is forgotten first). */
  maxClients?: number;
}

/** Token buckets by client: `take` is false when the client's bucket is empty. Memory is bounded by `maxClients`. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly maxClients: number;

  constructor(
    private readonly o: RateOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.maxClients = o.maxClients ?? 10_000;
  }

  take(client: string): boolean {
    const t = this.now();
    const b = this.buckets.get(client);
    const tokens = b ? Math.min(this.o.burst, b.tokens + ((t - b.at) / 1000) * this.o.perSecond) : this.o.burst;
    this.buckets.delete(client);
    if (this.buckets.size >= this.maxClients) this.buckets.delete(this.buckets.keys().next().value!);
    const ok = tokens >= 1;
    this.buckets.set(client, { tokens: ok ? tokens - 1 : tokens, at: t });
    return ok;
  }

  /** Clients remembered now (tests). */
  get size(): number {
    return this.buckets.size;
  }
}

/** Open connections by client, at most `max` each: `enter` returns the leave function, or undefined over the cap. */
export class ConnectionCap {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  enter(client: string): (() => void) | undefined {
    const n = this.open.get(client) ?? 0;
    if (n >= this.max) return undefined;
    this.open.set(client, n + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const m = (this.open.get(client) ?? 1) - 1;
      if (m <= 0) this.open.delete(client);
      else this.open.set(client, m);
    };
  }
}

/** A body limit on every POST (and any other method with a body): 413 beyond `maxBytes`, in the server's own form. */
export function postBodyLimit(maxBytes: number, refuse: (c: Context, message: string) => Response): MiddlewareHandler {
  const limit = bodyLimit({ maxSize: maxBytes, onError: (c) => refuse(c, `the body is larger than ${maxBytes} bytes`) });
  return async (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS' ? next() : limit(c, next));
}
