// What a tool is (name, description for a model, JSON-schema-able input and output, hints, and
// how it runs over the typed client), and the pieces the tools share.
import { z } from 'zod';
import type { Sdk } from './generated/sdk.ts';

/** What a tool hands back: text for the model, and the same as structured data matching its output schema. */
export type ToolResult = { text: string; structured: Record<string, unknown> };

export type ToolDefinition<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> = {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** MCP tool annotations: what calling it does to memory. */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  run(sdk: Sdk, args: z.infer<z.ZodObject<I>>): Promise<ToolResult>;
};

/** A definition, checked against its own schemas, then kept as any tool. */
export const tool = <I extends z.ZodRawShape, O extends z.ZodRawShape>(definition: ToolDefinition<I, O>) =>
  definition as unknown as ToolDefinition;

export const reads = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
export const time = z.string().describe('ISO-8601 date or date-time, e.g. 2024-05-01 or 2024-05-01T10:00:00Z');
export const memoryShape = { id: z.number().int(), content: z.string(), status: z.string() };
export const memoryOut = (m: { id: number; content: string; status: string }) => ({
  id: m.id,
  content: m.content,
  status: m.status.toLowerCase(),
});

/** A domain failure the model should read (unknown id, nothing matched): the tool's result, not a protocol error. */
export class ToolError extends Error {}
