import { fileURLToPath } from 'node:url';
import { run, type Io } from '@dnscore/cli';

export const EXAMPLE_ZONE = fileURLToPath(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url));

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the command in-process and collects what it writes. */
export async function dnscore(...argv: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}
