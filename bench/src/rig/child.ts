/** Runs one of the bench's child programs (dist/child/*.js) in a fresh Node process and reads its JSON line. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function runChild<T>(
  program: string,
  args: readonly string[],
  nodeArgs: readonly string[] = [],
  timeoutMs = 120_000,
): Promise<T> {
  const file = fileURLToPath(new URL(`../child/${program}`, import.meta.url));
  const { stdout } = await run(process.execPath, [...nodeArgs, file, ...args], {
    maxBuffer: 16 * 2 ** 20,
    timeout: timeoutMs,
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(`${program} printed no JSON result: ${stdout.slice(-500)}`);
  }
}
