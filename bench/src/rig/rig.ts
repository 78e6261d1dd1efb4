/**
 * Everything the bench runs against, all on 127.0.0.1: nsd serving the bench's zones, the
 * delaying proxy in front of it, and the unbound daemon as a caching resolver in front of nsd.
 * Each is stopped by its PID.
 */
import { startDelayProxy, type DelayProxy } from './delay-proxy.js';
import { signZone, startNsd, type NsdServer, type SignedZone } from './support.js';
import { startUnboundDaemon, type UnboundDaemon } from './unbound-daemon.js';
import {
  BENCH_ZONES,
  BULK_ZONE,
  RFC3263_ZONE,
  SIGNED_ZONE,
  SRV_ONLY_ZONE,
  bulkZoneText,
  rfc3263ZoneText,
  srvOnlyZoneText,
} from './zones.js';

export interface Rig {
  readonly nsd: NsdServer;
  /** nsd behind a delay of `delayMs` per answer. */
  readonly proxy: DelayProxy;
  readonly delayMs: number;
  /** The unbound daemon, caching, asking nsd directly. */
  readonly daemon: UnboundDaemon;
  readonly signed: SignedZone;
  /** Names in the bulk zone. */
  readonly bulkNames: number;
  stop(): Promise<void>;
}

export interface RigOptions {
  readonly delayMs: number;
  readonly bulkNames: number;
}

export async function startRig(options: RigOptions): Promise<Rig> {
  const signed = await signZone(SIGNED_ZONE, rfc3263ZoneText(SIGNED_ZONE));
  const started: { stop(): Promise<void> }[] = [];
  try {
    const nsd = await startNsd([
      { name: RFC3263_ZONE, text: rfc3263ZoneText() },
      { name: SRV_ONLY_ZONE, text: srvOnlyZoneText() },
      { name: SIGNED_ZONE, text: signed.text },
      { name: BULK_ZONE, text: bulkZoneText(options.bulkNames) },
    ]);
    started.push(nsd);
    const proxy = await startDelayProxy(nsd, options.delayMs);
    started.push(proxy);
    const daemon = await startUnboundDaemon(nsd, BENCH_ZONES);
    started.push(daemon);
    return {
      nsd,
      proxy,
      delayMs: options.delayMs,
      daemon,
      signed,
      bulkNames: options.bulkNames,
      stop: () => stopAll(started),
    };
  } catch (error) {
    await stopAll(started);
    throw error;
  }
}

async function stopAll(started: readonly { stop(): Promise<void> }[]): Promise<void> {
  for (const server of [...started].reverse()) {
    try {
      await server.stop();
    } catch {
      // keep stopping the others
    }
  }
}
