import { z } from 'zod';

/**
 * The suspension Request of the seed contract (src/contract/index.ts): what a human (or any resolver) is asked.
 * Keys are exactly `id, kind, prompt, url?, data?, expiresAt?`.
 */
export const RequestSchema = z
  .object({
    id: z.string().min(1),
    kind: z.string().min(1),
    prompt: z.string(),
    url: z.string().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    expiresAt: z.string().optional(),
  })
  .strict();
export type Request = z.infer<typeof RequestSchema>;

/**
 * The Answer of the seed contract (src/contract/index.ts). `reason` is only meaningful when `ok` is false.
 */
export const AnswerSchema = z
  .object({
    id: z.string().min(1, 'id must be a non-empty string'),
    ok: z.boolean(),
    data: z.record(z.string(), z.unknown()).optional(),
    reason: z.string().optional(),
  })
  .strict()
  .refine((a) => !(a.ok && a.reason !== undefined), {
    message: 'reason is only allowed when ok is false',
    path: ['reason'],
  });
export type Answer = z.infer<typeof AnswerSchema>;

const ElicitContentValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

/** MCP `ElicitResult` as this bridge produces it. */
export const ElicitResultSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('accept'), content: z.record(z.string(), ElicitContentValue).optional() }).strict(),
  z.object({ action: z.literal('decline') }).strict(),
  z.object({ action: z.literal('cancel') }).strict(),
]);
export type ElicitResult = z.infer<typeof ElicitResultSchema>;

/** The parameters of MCP `elicitation/create`, as far as the bridge reads them. */
export const ElicitParamsSchema = z
  .object({
    mode: z.enum(['form', 'url']).optional(),
    message: z.string().optional(),
    requestedSchema: z.record(z.string(), z.unknown()).optional(),
    url: z.string().optional(),
    elicitationId: z.string().optional(),
  })
  .passthrough();
export type ElicitParams = z.infer<typeof ElicitParamsSchema>;

/** Tool result: `{ output, isError, metadata? }`. */
export const ToolResultSchema = z
  .object({
    output: z.string(),
    isError: z.boolean(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ToolResult = z.infer<typeof ToolResultSchema>;

/** Reasons the bridge itself uses for `ok:false` answers. */
export const Reasons = {
  declined: 'declined',
  cancelled: 'cancelled',
  expired: 'expired',
} as const;
