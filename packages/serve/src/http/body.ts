/** A JSON request body, read up to a limit: over it the request is refused before it is all read. */
import type { IncomingMessage } from 'node:http';
import { BadRequestError, PayloadTooLargeError } from '../errors.js';

/** `start` runs once the body is known to be wanted (it sends 100 Continue to a client that waits for it). */
export async function readJson(
  req: IncomingMessage,
  limit: number,
  start: () => void = () => {},
): Promise<Record<string, unknown>> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit)
    throw new PayloadTooLargeError(`the body is larger than ${limit} bytes`);
  start();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLargeError(`the body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new BadRequestError('the body is not UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`the body is not JSON: ${(error as Error).message.slice(0, 120)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new BadRequestError('the body must be a JSON object');
  return value as Record<string, unknown>;
}
