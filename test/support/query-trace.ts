/**
 * Records the query traces that end on `dnscore:query` while the calling test runs: subscribes
 * now, unsubscribes when the test finishes (passed or failed), so no test sees another's traces.
 */
import { onTestFinished } from 'vitest';
import { queryChannel, type QueryTraceContext } from '@dnscore/core/diagnostics';

/** The contexts of the query traces that end from now to the end of the test, in order. */
export function recordQueryTraces(): QueryTraceContext[] {
  const ended: QueryTraceContext[] = [];
  const handlers = {
    start: () => {},
    end: () => {},
    asyncStart: () => {},
    error: () => {},
    asyncEnd: (ctx: QueryTraceContext) => void ended.push(ctx),
  };
  queryChannel.subscribe(handlers);
  onTestFinished(() => void queryChannel.unsubscribe(handlers));
  return ended;
}
