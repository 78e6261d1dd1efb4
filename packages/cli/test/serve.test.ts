/** `dnscore serve`: the API answers exactly what `dnscore sip --json` prints; flags and the bind. */
import { createServer } from 'node:net';
import { isLoopback } from '@dnscore/serve';
import { describe, expect, it } from 'vitest';
import { serveCommand } from '../src/commands/serve.js';
import { EXAMPLE_ZONE, capturedIo, dnscore } from './support.js';

/** Starts `dnscore serve ARGS` in-process; resolves with its URL and a stop function. */
async function serve(...argv: string[]) {
  const { io, stdout, stderr } = capturedIo();
  const stop = new AbortController();
  const done = serveCommand(argv, io, stop.signal);
  for (let i = 0; i < 200 && !stdout().includes('http://'); i++) await new Promise((r) => setTimeout(r, 25));
  const url = /(http:\/\/\S+\/)/.exec(stdout())?.[1];
  if (!url) throw new Error(`dnscore serve did not start: ${stderr()}`);
  return {
    url,
    stdout,
    stderr,
    stop: async () => {
      stop.abort();
      return done;
    },
  };
}

/** `expires` is the clock time of each answer: the one field two runs cannot share. */
// Expiry times are absolute and the two processes resolve at different moments: kept as types.
const withoutExpires = (json: { targets: { expires: unknown }[]; naptr?: { expires: unknown } }) => ({
  ...json,
  targets: json.targets.map((t) => ({ ...t, expires: typeof t.expires })),
  ...(json.naptr ? { naptr: { ...json.naptr, expires: typeof json.naptr.expires } } : {}),
});

describe('dnscore serve', () => {
  it('binds 127.0.0.1 and /api/sip answers what dnscore sip --json prints for the same question', async () => {
    const s = await serve('--port', '0', '--zone', EXAMPLE_ZONE);
    try {
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(s.stdout()).toContain('(DNS: zone; Ctrl-C stops)');
      expect(s.stderr()).toBe('');
      for (const [query, flags] of [
        [
          'uri=sip:bob@biloxi.example&transports=udp,tcp&seed=7&ipv6=0',
          ['--transports', 'udp,tcp', '--seed', '7', '--no-ipv6'],
        ],
        ['uri=sips:alice@biloxi.example&seed=3', ['--seed', '3']],
        ['uri=sip:bob@biloxi.example:5070;transport=tcp', []],
        ['uri=sip:bob@nowhere.example&transports=udp', ['--transports', 'udp']],
      ] as const) {
        const api = (await (await fetch(`${s.url}api/sip?${query}`)).json()) as { targets: { expires: unknown }[] };
        const uri = new URLSearchParams(query).get('uri')!;
        const cli = await dnscore('sip', uri, '--zone', EXAMPLE_ZONE, '--json', ...flags);
        expect(withoutExpires(api)).toEqual(withoutExpires(JSON.parse(cli.stdout)));
      }
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('/api/check answers what dnscore check --json prints', async () => {
    const s = await serve('--port', '0', '--zone', EXAMPLE_ZONE);
    try {
      for (const target of ['biloxi.example', 'sip:bob@biloxi.example:5060;transport=udp']) {
        const api = await (await fetch(`${s.url}api/check?target=${encodeURIComponent(target)}`)).json();
        const cli = await dnscore('check', target, '--zone', EXAMPLE_ZONE, '--json');
        expect(api).toEqual(JSON.parse(cli.stdout));
      }
    } finally {
      await s.stop();
    }
  });

  it('exits 2 for bad flags and for a port already taken', async () => {
    expect((await dnscore('serve', '--port', '70000')).code).toBe(2);
    expect((await dnscore('serve', 'extra')).stderr).toContain('serve takes no arguments');
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      const { code, stderr } = await dnscore('serve', '--port', String(port), '--zone', EXAMPLE_ZONE);
      expect(code).toBe(2);
      expect(stderr).toMatch(new RegExp(`^dnscore: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    } finally {
      taken.close();
    }
  });

  it('knows loopback from the rest (a bind elsewhere warns)', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(isLoopback(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.0.2.1', '10.0.0.1', 'example.com']) expect(isLoopback(host)).toBe(false);
  });
});
