/**
 * `dnscore serve`: the RFC 3263 step-through in a browser. Starts @dnscore/serve's HTTP server
 * over the backend the flags name and runs until SIGINT or SIGTERM. Binds 127.0.0.1 unless
 * --host says otherwise, and then warns: the page answers DNS questions for anyone who reaches it.
 */
import { parseArgs } from 'node:util';
import { startServer } from '@dnscore/serve';
import { backendOptions, buildCore } from '../backends.js';
import { ExitCode } from '../exit-codes.js';
import { integer } from '../flags.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

export const SERVE_USAGE = `usage: dnscore serve [--port P] [--host 127.0.0.1] [--allow-host NAME]... [backend flags]`;

export async function serveCommand(argv: readonly string[], io: Io, stop?: AbortSignal): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-host': { type: 'string', multiple: true },
      ...backendOptions,
    },
  });
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments\n${SERVE_USAGE}`);
  const port = values.port === undefined ? undefined : integer(values.port, '--port', 0, 65535);
  const { core, description } = await buildCore(values);
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer({
      backend: core,
      description,
      logger: { info() {}, warn: (message) => io.stderr(`${message}\n`) },
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(values['allow-host'] ? { allowedHosts: values['allow-host'] } : {}),
    });
  } catch (error) {
    await core.close();
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE' || e.code === 'EADDRNOTAVAIL' || e.code === 'EACCES' || e.code === 'ENOTFOUND')
      throw new UsageError(`cannot listen on ${values.host ?? '127.0.0.1'}:${port ?? 8053}: ${e.message}`);
    throw error;
  }
  if (running.exposed)
    io.stderr(
      `dnscore: warning: listening on ${running.host}, not loopback: anyone who reaches this address can make ` +
        `this machine ask DNS questions through ${description}\n`,
    );
  io.stdout(`dnscore serve: ${running.url} (DNS: ${description}; Ctrl-C stops)\n`);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    stop?.addEventListener('abort', done, { once: true });
  });
  await running.close();
  await core.close();
  return ExitCode.OK;
}
