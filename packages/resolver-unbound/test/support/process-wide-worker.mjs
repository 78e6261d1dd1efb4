/**
 * A resolver in a worker_threads thread, for process-wide.test.ts (the package as built: dist/).
 * Messages: { make: options } makes one (posts { made: true } or the refusal's { error, option,
 * message }), { ask: name } posts { rcode, ttl } of its A answer, { close: true } closes it
 * (posts { closed: true }), { exit: true } ends the thread without closing it, { flood: n } asks
 * n names at once and posts { flowing: true } after the 50th answer, the rest still in flight,
 * { drop: true } drops the resolver without close() and collects it (posts { dropped: true }).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { makeQuery, parseMessage } from '@dnscore/core/plugin';
import { UnboundResolver } from '../../dist/index.js';

let resolver;
parentPort.on('message', async (message) => {
  if (message.make) {
    try {
      resolver = new UnboundResolver(message.make);
      parentPort.postMessage({ made: true });
    } catch (error) {
      parentPort.postMessage({ error: error.name, option: error.option, message: error.message });
    }
  } else if (message.ask) {
    const answer = await resolver.resolve(makeQuery(message.ask, 'A'), new AbortController().signal);
    parentPort.postMessage({ rcode: answer.rcode, ttl: parseMessage(answer.answer).answers[0].ttl });
  } else if (message.flood) {
    let answered = 0;
    for (let i = 0; i < message.flood; i++) {
      const settle = () => {
        if (++answered === 50) parentPort.postMessage({ flowing: true });
      };
      resolver.resolve(makeQuery(`f${i}.lab.test`, 'A'), new AbortController().signal).then(settle, settle);
    }
  } else if (message.drop) {
    resolver = undefined;
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    parentPort.postMessage({ dropped: true });
  } else if (message.close) {
    resolver.close();
    parentPort.postMessage({ closed: true });
  } else if (message.exit) {
    process.exit(0);
  }
});
