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
  // By priority, ascending; a stable sort keeps each priority's records in the order given.
  let sorted = true;
  for (let i = 1; i < records.length && sorted; i++)
    sorted = records[i - 1]!.data.priority <= records[i]!.data.priority;
  const byPriority = sorted ? records : [...records].sort((a, b) => a.data.priority - b.data.priority);
  const ordered: R[] = [];
  const remaining: R[] = [];
  for (let start = 0; start < byPriority.length; ) {
    const priority = byPriority[start]!.data.priority;
    let end = start;
    while (end < byPriority.length && byPriority[end]!.data.priority === priority) end++;
    // Weight-0 records first in the running sum, then the others, each in the order given.
    let sum = 0;
    for (let i = start; i < end; i++) if (byPriority[i]!.data.weight === 0) remaining.push(byPriority[i]!);
    for (let i = start; i < end; i++) {
      const record = byPriority[i]!;
      if (record.data.weight !== 0) {
        remaining.push(record);
        sum += record.data.weight;
      }
    }
    while (remaining.length > 0) {
      const pick = Math.min(sum, Math.floor(random() * (sum + 1)));
      // RFC 2782: the first record whose running sum of weights reaches the pick.
      let running = 0;
      let index = 0;
      for (; index < remaining.length - 1; index++) {
        running += remaining[index]!.data.weight;
        if (running >= pick) break;
      }
      const chosen = remaining.splice(index, 1)[0]!;
      sum -= chosen.data.weight;
      ordered.push(chosen);
    }
    start = end;
  }
  return ordered;
}

export type SrvRecord = TypedRecord<'SRV'>;
