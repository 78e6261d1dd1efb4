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
    target: reader.nameText('SRV target'),
  };
}

/**
 * RFC 2782 order: priorities ascending; within a priority, records are drawn one by one with
 * probability proportional to weight. The RFC lets a client arrange a priority's records "in any
 * order, except that all those with weight 0 are placed at the beginning" before its running sum;
 * each draw arranges them at random (so the order handed in, a cached answer's for its whole
 * life, favours no record), then puts the weight-0 ones first. The pick is a random number in
 * [0, sum], so a weight-0 record comes first with probability 1/(sum+1): "a very small chance",
 * not never; with every weight 0, each record comes first equally often.
 *
 * Random numbers, per priority of n records: n-1 for the arrangement (Fisher-Yates "inside-out"
 * over the records in the order given), then one per record for the running-sum picks.
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
    const sum = arrange(byPriority, start, end, remaining, random);
    drawRunningSum(remaining, sum, random, ordered);
    start = end;
  }
  return ordered;
}

/**
 * Fills the empty `into` with records[start..end) in a uniformly random arrangement, the weight-0
 * ones first (each part in the arrangement's order); returns the sum of their weights.
 */
function arrange<R extends { readonly data: SrvData }>(
  records: readonly R[],
  start: number,
  end: number,
  into: R[],
  random: RandomSource,
): number {
  let sum = records[start]!.data.weight;
  into.push(records[start]!);
  for (let i = start + 1; i < end; i++) {
    const record = records[i]!;
    const k = i - start;
    const j = Math.min(k, Math.floor(random() * (k + 1)));
    into.push(record);
    into[k] = into[j]!;
    into[j] = record;
    sum += record.data.weight;
  }
  // Weight 0 to the beginning, in place and stably: a priority holds a handful of records.
  let zeros = 0;
  for (let i = 0; i < into.length; i++) {
    const record = into[i]!;
    if (record.data.weight !== 0) continue;
    for (let k = i; k > zeros; k--) into[k] = into[k - 1]!;
    into[zeros++] = record;
  }
  return sum;
}

/** Empties `remaining` into `ordered` by RFC 2782's running-sum draw. */
function drawRunningSum<R extends { readonly data: SrvData }>(
  remaining: R[],
  sum: number,
  random: RandomSource,
  ordered: R[],
): void {
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
}

export type SrvRecord = TypedRecord<'SRV'>;
