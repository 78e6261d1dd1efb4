/**
 * The far node of the shared penalty box's propagation figure: a RedisPenaltyStore in its own
 * process that notes, for each of COUNT marks of another node, the monotonic time (CLOCK_MONOTONIC,
 * the same for every process of the machine) at which its local box got it. Prints {"ready":true}
 * once synced, then one JSON line {key: ns} when it has them all.
 * Usage: node penalty-listener-main.js REDIS_URL PREFIX COUNT
 */
import { RedisPenaltyStore } from '@dnscore/penalty-redis';

const [url = 'redis://127.0.0.1:6379', prefix = 'bench:', countText = '100'] = process.argv.slice(2);
const count = Number(countText);
const seen: Record<string, string> = {};
let received = 0;
const store = new RedisPenaltyStore({
  url,
  prefix,
  log: () => {},
  onRemote: (key) => {
    if (seen[key] !== undefined) return;
    seen[key] = String(process.hrtime.bigint());
    if (++received === count) {
      process.stdout.write(`${JSON.stringify(seen)}\n`);
      void store.close().then(() => process.exit(0));
    }
  },
}).start();
await store.whenSynced();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
