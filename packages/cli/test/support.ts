import { fileURLToPath } from 'node:url';
import { run, type Io } from '@dnscore/cli';

export const EXAMPLE_ZONE = fileURLToPath(new URL('../../../examples/zones/biloxi.example.zone', import.meta.url));

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** An Io whose output the test reads back: what the command wrote so far to stdout and to stderr. */
export function capturedIo(): { readonly io: Io; stdout(): string; stderr(): string } {
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
  return { io, stdout: () => stdout, stderr: () => stderr };
}

/** Runs the command in-process and collects what it writes. */
export async function dnscore(...argv: string[]): Promise<Ran> {
  const { io, stdout, stderr } = capturedIo();
  const code = await run(argv, io);
  return { code, stdout: stdout(), stderr: stderr() };
}
