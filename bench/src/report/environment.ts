/** The machine, the versions of everything measured, and the settings of the run. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);

export interface Environment {
  readonly rows: readonly (readonly [string, string])[];
}

function packageVersion(dir: string): string {
  try {
    return (JSON.parse(readFileSync(`${ROOT}${dir}/package.json`, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function npmVersion(name: string): string {
  try {
    const file = require.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

function tool(command: string, args: readonly string[], pattern: RegExp): string {
  // Some print their version on stderr, some exit non-zero after printing it.
  const run = spawnSync(command, args, { encoding: 'utf8' });
  const text = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  return pattern.exec(text)?.[1] ?? (run.error ? 'not installed' : 'unknown');
}

function libunboundVersion(): string {
  try {
    return (require('unbound') as { version(): string }).version();
  } catch {
    return 'binding not loadable';
  }
}

function osRelease(): string {
  try {
    return /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? os.type();
  } catch {
    return os.type();
  }
}

export function describeEnvironment(settings: {
  quick: boolean;
  delayMs: number;
  seconds?: number;
  loadAtStart: readonly number[];
}): Environment {
  const cpus = os.cpus();
  return {
    rows: [
      ['date', new Date().toISOString().replace(/\.\d+Z$/, 'Z')],
      [
        'machine',
        `${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores (${os.availableParallelism()} available), ` +
          `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
      ],
      ['system', `${osRelease()}, Linux ${os.release()}`],
      [
        'Node.js',
        `${process.version} (V8 ${process.versions.v8}, libuv ${process.versions.uv}, c-ares ${process.versions.ares})`,
      ],
      ['UV_THREADPOOL_SIZE', process.env.UV_THREADPOOL_SIZE ?? '4 (default)'],
      [
        'dnscore',
        `@dnscore/core ${packageVersion('packages/core')}, resolver-system ` +
          `${packageVersion('packages/resolver-system')}, ` +
          `resolver-unbound ${packageVersion('packages/resolver-unbound')}, sip ${packageVersion('packages/sip')}, ` +
          `sip-bridge ${packageVersion('packages/sip-bridge')}`,
      ],
      ['npm `sip`', npmVersion('sip')],
      ['npm `unbound`', `${npmVersion('unbound')} (libunbound ${libunboundVersion()})`],
      ['nsd', tool('/usr/sbin/nsd', ['-v'], /NSD version ([\d.]+)/)],
      ['unbound daemon', tool('/usr/sbin/unbound', ['-V'], /Version ([\d.]+)/)],
      [
        'run',
        `${settings.quick ? 'quick (`--quick`)' : 'full'}, D = ${settings.delayMs} ` +
          `ms${settings.seconds ? `, ${settings.seconds.toFixed(0)} s in all` : ''}`,
      ],
      // Other work on the machine skews every figure; the load average says how busy it was.
      ['load average at start', settings.loadAtStart.map((l) => l.toFixed(2)).join(', ')],
    ],
  };
}
