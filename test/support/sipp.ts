/**
 * sipp (Debian sip-tester) as SIP servers and clients on loopback, started by the tests and
 * stopped by PID. Every socket sipp opens (SIP, control, media) is bound to the given
 * 127.x.y.z address: sipp's control socket would otherwise listen on 0.0.0.0:8888.
 * This sipp is built without TLS (`sipp -v` lacks "TLS"): TLS peers are node servers instead.
 * SIPP_TRACE=1 in the environment makes sipp write its message and error logs to its work dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopOnExit } from './cleanup.js';
import { freePort } from './ports.js';

export const SIPP = '/usr/bin/sipp';

export interface SippProcess {
  readonly pid: number;
  readonly address: string;
  readonly port: number;
  /** Resolves with sipp's exit code (0: every call succeeded). */
  readonly exited: Promise<number | null>;
  /** What sipp wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

const workDir = mkdtempSync(join(tmpdir(), 'dnscore-sipp-'));

/** Writes a scenario file and returns its path. */
export function scenarioFile(name: string, xml: string): string {
  const file = join(workDir, `${name}.xml`);
  writeFileSync(file, xml);
  return file;
}

/** A UAS answering every OPTIONS, INFO or MESSAGE with `status` (and Retry-After when given). */
export function answeringScenario(status: number, reason: string, retryAfter?: number): string {
  return scenarioFile(
    `answer-${status}${retryAfter === undefined ? '' : `-ra${retryAfter}`}`,
    `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="answer ${status}">
  <recv request="OPTIONS|INFO|MESSAGE" regexp_match="true"/>
  <send>
    <![CDATA[
SIP/2.0 ${status} ${reason}
[last_Via:]
[last_From:]
[last_To:];tag=[pid]SIPpTag01[call_number]
[last_Call-ID:]
[last_CSeq:]
${retryAfter === undefined ? '' : `Retry-After: ${retryAfter}\n`}Content-Length: 0

    ]]>
  </send>
</scenario>
`,
  );
}

/**
 * A UAC that starts a dialog (INVITE, 200, ACK) with the application, then waits for the
 * application's in-dialog INFO and answers it 200: it succeeds only if the INFO came back to it.
 */
export function dialogScenario(): string {
  return scenarioFile(
    'dialog-uac',
    `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="dialog then in-dialog INFO">
  <send retrans="500">
    <![CDATA[
INVITE sip:app@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: <sip:sipp@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:app@[remote_ip]:[remote_port]>
Call-ID: [call_id]
CSeq: 1 INVITE
Contact: <sip:sipp@[local_ip]:[local_port]>
Max-Forwards: 70
Content-Length: 0

    ]]>
  </send>
  <recv response="100" optional="true"/>
  <recv response="200"/>
  <send>
    <![CDATA[
ACK sip:app@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: <sip:sipp@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
[last_To:]
Call-ID: [call_id]
CSeq: 1 ACK
Max-Forwards: 70
Content-Length: 0

    ]]>
  </send>
  <recv request="INFO" timeout="10000"/>
  <send>
    <![CDATA[
SIP/2.0 200 OK
[last_Via:]
[last_From:]
[last_To:]
[last_Call-ID:]
[last_CSeq:]
Content-Length: 0

    ]]>
  </send>
</scenario>
`,
  );
}

export interface SippOptions {
  readonly scenario: string;
  /** A 127.x.y.z address: every socket of the process is bound to it. */
  readonly address: string;
  readonly port: number;
  readonly transport: 'udp' | 'tcp';
}

/** A sipp server (UAS) that runs until stopped; resolves once its SIP socket is listening. */
export async function startSippServer(options: SippOptions): Promise<SippProcess> {
  const sipp = await launch(options, []);
  await waitListening(sipp, options);
  return sipp;
}

/** A sipp client (UAC) running `calls` calls against `remote` ("127.0.0.1:5060"), then exiting. */
export async function startSippClient(
  options: SippOptions & { readonly remote: string; readonly calls?: number },
): Promise<SippProcess> {
  if (!/^127\.\d+\.\d+\.\d+:\d+$/.test(options.remote))
    throw new Error(`sipp clients only talk to loopback, not ${options.remote}`);
  return launch(options, [options.remote, '-m', String(options.calls ?? 1), '-timeout', '20s', '-timeout_error']);
}

async function launch(options: SippOptions, extra: string[]): Promise<SippProcess> {
  const { scenario, address, port, transport } = options;
  if (!/^127\.\d+\.\d+\.\d+$/.test(address)) throw new Error(`sipp runs on 127.0.0.0/8 only, not ${address}`);
  const control = await freePort(address);
  const media = await freePort(address);
  const args = [
    '-sf',
    scenario,
    '-i',
    address,
    '-p',
    String(port),
    '-t',
    transport === 'udp' ? 'u1' : 't1',
    '-ci',
    address,
    '-cp',
    String(control),
    '-mi',
    address,
    '-mp',
    String(media),
    '-nostdin',
    ...(process.env.SIPP_TRACE ? ['-trace_msg', '-trace_err'] : []),
    ...extra,
  ];
  const child: ChildProcess = spawn(SIPP, args, { cwd: workDir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`sipp did not start: ${stderr}`);
  void exited.then(stopOnExit(pid));
  return {
    pid,
    address,
    port,
    exited,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && process.kill(pid, 'SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls /proc/net until the SIP socket of `sipp` is bound (UDP) or listening (TCP). */
async function waitListening(sipp: SippProcess, options: SippOptions): Promise<void> {
  let gone = false;
  void sipp.exited.then(() => (gone = true));
  for (let i = 0; i < 100; i++) {
    if (gone)
      throw new Error(
        `sipp exited before listening on ${options.transport} ${options.address}:${options.port}: ${sipp.stderr()}`,
      );
    if (isBound(options.address, options.port, options.transport)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  await sipp.stop();
  throw new Error(
    `sipp did not listen on ${options.transport} ${options.address}:${options.port} within 5 s: ${sipp.stderr()}`,
  );
}

/** True when /proc/net/{udp,tcp} lists address:port (TCP in LISTEN state). */
export function isBound(address: string, port: number, transport: 'udp' | 'tcp'): boolean {
  const hex = address
    .split('.')
    .map((o) => Number(o).toString(16).padStart(2, '0').toUpperCase())
    .reverse()
    .join('');
  const local = `${hex}:${port.toString(16).padStart(4, '0').toUpperCase()}`;
  return readFileSync(`/proc/net/${transport}`, 'utf8')
    .split('\n')
    .slice(1)
    .some((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[1] === local && (transport === 'udp' || fields[3] === '0A');
    });
}
