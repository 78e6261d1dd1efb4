/**
 * The signed tree (signed-tree.ts) on nsd, behind a man in the middle (dns-proxy.ts), both on free
 * loopback ports: the stage of every test of a validator against an on-path attacker. Called at the
 * top level of a test file, it starts them once before the file's tests and stops them after (nsd by
 * PID, also on failure and SIGINT: see cleanup.ts); before each test the proxy passes everything on
 * again and forgets the queries it saw.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startDnsProxy, type DnsProxy } from './dns-proxy.js';
import { startNsd, type NsdServer } from './nsd.js';
import { signTree, type SignedTree } from './signed-tree.js';

export interface SignedTreeBehindProxy {
  /** The zones nsd serves and their one trust anchor. */
  readonly tree: SignedTree;
  /** The attacker: set its `rewrite`, read its `queries`. */
  readonly proxy: DnsProxy;
  /** UnboundResolver options that ask the proxy alone (no resolv.conf, no hosts file) under the tree's anchor. */
  readonly unboundOptions: {
    readonly nameservers: string[];
    readonly resolvConf: false;
    readonly hosts: false;
    readonly trustAnchors: string[];
  };
  /** Closes `item` (a DnsCore, a resolver) after the file's last test, before the proxy and nsd stop. */
  closeAtEnd<T extends { close(): unknown }>(item: T): T;
}

/** Registers the file's hooks; the tree and the proxy are there from its first test on. */
export function signedTreeBehindProxy(): SignedTreeBehindProxy {
  let stage: { tree: SignedTree; nsd: NsdServer; proxy: DnsProxy } | undefined;
  const toClose: { close(): unknown }[] = [];
  const started = () => {
    if (!stage) throw new Error('signedTreeBehindProxy: the tree and the proxy start before the first test');
    return stage;
  };

  beforeAll(async () => {
    const tree = await signTree();
    const nsd = await startNsd(tree.zones);
    const proxy = await startDnsProxy(nsd).catch(async (error: unknown) => {
      await nsd.stop();
      throw error;
    });
    stage = { tree, nsd, proxy };
  }, 60_000);
  afterAll(async () => {
    try {
      await Promise.all(toClose.splice(0).map((item) => item.close()));
    } finally {
      await stage?.proxy.close();
      await stage?.nsd.stop();
    }
  });
  beforeEach(() => {
    if (!stage) return;
    stage.proxy.rewrite = (_query, answer) => answer;
    stage.proxy.queries.length = 0;
  });

  return {
    get tree() {
      return started().tree;
    },
    get proxy() {
      return started().proxy;
    },
    get unboundOptions(): SignedTreeBehindProxy['unboundOptions'] {
      const { tree, proxy } = started();
      return { nameservers: [proxy.endpoint], resolvConf: false, hosts: false, trustAnchors: [tree.anchor] };
    },
    closeAtEnd(item) {
      toClose.push(item);
      return item;
    },
  };
}
