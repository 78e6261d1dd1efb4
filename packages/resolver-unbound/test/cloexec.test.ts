/**
 * libunbound opens its outgoing sockets without close-on-exec; the addon's event base marks each
 * fd libunbound hands it. With questions in flight to a silent server (their sockets open), every
 * such socket carries O_CLOEXEC in /proc/self/fdinfo and a child spawned meanwhile holds none of them.
 */
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { makeQuery } from '@dnscore/core/plugin';
import { afterEach, describe, expect, it } from 'vitest';
import { UnboundResolver } from '../src/unbound-resolver.js';
import { labOptions } from './support/lab.js';
import { requiredAddon } from './support/addon.js';

requiredAddon();

const QUESTIONS = 12;
/** O_CLOEXEC as /proc/PID/fdinfo shows it (octal "flags:" line). */
const O_CLOEXEC = 0o2000000;

/** What a child runs: prints where each of its fds points, one a line. */
const LIST_FDS = [
  "const fs = require('fs');",
  "for (const fd of fs.readdirSync('/proc/self/fd'))",
  "  try { console.log(fs.readlinkSync('/proc/self/fd/' + fd)); } catch {}",
].join('\n');

/** Inodes of this process's UDP sockets connected to 127.0.0.1:port (unbound's udp-connect), from /proc/net/udp. */
function socketsTo(port: number): Set<string> {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const line of readFileSync('/proc/net/udp', 'utf8').trim().split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[2] === remote) inodes.add(fields[9]!);
  }
  return inodes;
}

/** This process's fds that are one of `inodes`, by fd number. */
function fdsOf(inodes: Set<string>): string[] {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      return match !== null && inodes.has(match[1]!);
    } catch {
      return false; // closed meanwhile (readdir's own fd among them)
    }
  });
}

describe('the resolver sockets are close-on-exec', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const step of cleanup.splice(0)) step();
  });

  it('with questions in flight: O_CLOEXEC on each, and a spawned child inherits none', async () => {
    const silent = createSocket('udp4');
    let received = 0;
    const arrived: (() => void)[] = [];
    silent.on('message', () => {
      received++;
      for (const wake of arrived.splice(0)) wake();
    });
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    cleanup.push(() => silent.close());
    const port = silent.address().port;
    const resolver = new UnboundResolver(labOptions(`127.0.0.1@${port}`, { threads: 2 }));
    const abort = new AbortController();
    cleanup.push(() => {
      abort.abort();
      resolver.close();
    });
    const pending = Array.from({ length: QUESTIONS }, (_, i) =>
      resolver.resolve(makeQuery(`h${i}.lab.test`, 'A'), abort.signal).catch((error: Error) => error.name),
    );
    while (received < QUESTIONS) await new Promise<void>((resolve) => arrived.push(resolve));

    const fds = fdsOf(socketsTo(port));
    expect(fds.length).toBeGreaterThanOrEqual(QUESTIONS);
    for (const fd of fds) {
      const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      expect(flags, `fd ${fd}`).not.toBeNull();
      expect(Number.parseInt(flags![1]!, 8) & O_CLOEXEC, `fd ${fd} flags ${flags![1]}`).toBe(O_CLOEXEC);
    }

    const inodes = socketsTo(port);
    const child = spawnSync(process.execPath, ['-e', LIST_FDS], { encoding: 'utf8' });
    expect(child.status).toBe(0);
    const held = child.stdout.split('\n').filter((link) => {
      const match = /^socket:\[(\d+)\]$/.exec(link);
      return match !== null && inodes.has(match[1]!);
    });
    expect(held).toEqual([]);
    // The child did see sockets of its own kind: the check reads what it means to read.
    expect(child.stdout).toMatch(/^(pipe|socket|anon_inode):/m);

    abort.abort();
    expect(await Promise.all(pending)).toEqual(Array.from({ length: QUESTIONS }, () => 'AbortError'));
  });
});
