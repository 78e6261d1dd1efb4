/** SRV records (RFC 2782): parsing and the order in which a client tries them. */
import type { RandomSource } from '../random.js';
import type { WireReader } from '../wire/reader.js';
import type { SrvData, TypedRecord } from './types.js';

export function decodeSrv(reader: WireReader): SrvData {
  return {
    priority: reader.u16('SRV priority'),
    weight: reader.u16('SRV weight'),
    port: reader.u16('SRV port'),
    // A target "." is valid: the service is decidedly not available (RFC 2782).
    target: reader.name('SRV target').text,
  };
}

/**
 * RFC 2782 order: priorities ascending; within a priority, records are drawn one by one with
 * probability proportional to weight. As the RFC says, weight-0 records go first in the
 * running sum and the draw is a random number in [0, sum], so a weight-0 record comes first
 * with probability 1/(sum+1): "a very small chance", not never.
 */
export function orderSrv<R extends { readonly data: SrvData }>(records: readonly R[], random: RandomSource): R[] {
  const byPriority = new Map<number, R[]>();
  for (const record of records) {
    const group = byPriority.get(record.data.priority);
    if (group) group.push(record);
    else byPriority.set(record.data.priority, [record]);
  }
  const ordered: R[] = [];
  for (const priority of [...byPriority.keys()].sort((a, b) => a - b)) {
    const group = byPriority.get(priority)!;
    const remaining = [...group.filter((r) => r.data.weight === 0), ...group.filter((r) => r.data.weight !== 0)];
    while (remaining.length > 0) {
      const sum = remaining.reduce((total, r) => total + r.data.weight, 0);
      const pick = Math.min(sum, Math.floor(random() * (sum + 1)));
      // RFC 2782: the first record whose running sum of weights reaches the pick.
      let running = 0;
      let index = 0;
      for (; index < remaining.length - 1; index++) {
        running += remaining[index]!.data.weight;
        if (running >= pick) break;
      }
      ordered.push(remaining.splice(index, 1)[0]!);
    }
  }
  return ordered;
}

export type SrvRecord = TypedRecord<'SRV'>;
