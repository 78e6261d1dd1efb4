/**
 * install(lookup): makes a dnscore lookup the default of http.globalAgent and
 * https.globalAgent and, when the undici module is passed, of undici's global dispatcher (which
 * Node's global fetch shares). uninstall() puts back exactly what was there. Code that makes its
 * own Agent passes `lookup` itself.
 */
import http from 'node:http';
import https from 'node:https';
import { NodeArgumentError, received } from './errors.js';
import type { NodeDnsLookup } from './lookup.js';

/** The parts of the undici module install() uses. */
export interface UndiciModule {
  readonly Agent: new (options: { connect: { lookup: NodeDnsLookup } }) => UndiciDispatcher;
  setGlobalDispatcher(dispatcher: unknown): void;
  getGlobalDispatcher(): unknown;
}

interface UndiciDispatcher {
  close(): Promise<void>;
}

export interface InstallOptions {
  /** `await import('undici')`: also set undici's global dispatcher (fetch) to an Agent with this lookup. */
  readonly undici?: UndiciModule;
}

interface Installed {
  readonly httpLookup: unknown;
  readonly httpsLookup: unknown;
  readonly undici?: { readonly module: UndiciModule; readonly previous: unknown; readonly agent: UndiciDispatcher };
}

let installed: Installed | undefined;

export function install(lookup: NodeDnsLookup, options: InstallOptions = {}): void {
  if (typeof lookup !== 'function') {
    throw new NodeArgumentError(
      'ERR_INVALID_ARG_TYPE',
      `The "lookup" argument must be of type function. ${received(lookup)}`,
    );
  }
  if (installed)
    throw Object.assign(new Error('a dnscore lookup is already installed; uninstall() it first'), {
      code: 'ERR_DNSCORE_INSTALLED',
    });
  const undici = options.undici;
  if (
    undici !== undefined &&
    (typeof undici.Agent !== 'function' || typeof undici.setGlobalDispatcher !== 'function')
  ) {
    throw new NodeArgumentError('ERR_INVALID_ARG_TYPE', 'The "options.undici" property must be the undici module');
  }
  const httpOptions = agentOptions(http.globalAgent);
  const httpsOptions = agentOptions(https.globalAgent);
  const state: Installed = {
    httpLookup: httpOptions.lookup,
    httpsLookup: httpsOptions.lookup,
    ...(undici
      ? {
          undici: {
            module: undici,
            previous: undici.getGlobalDispatcher(),
            agent: new undici.Agent({ connect: { lookup } }),
          },
        }
      : {}),
  };
  httpOptions.lookup = lookup;
  httpsOptions.lookup = lookup;
  if (state.undici) undici!.setGlobalDispatcher(state.undici.agent);
  installed = state;
}

/** Puts back the lookups and the dispatcher install() replaced; closes the Agent it made. */
export async function uninstall(): Promise<void> {
  const state = installed;
  if (!state) return;
  installed = undefined;
  restore(agentOptions(http.globalAgent), state.httpLookup);
  restore(agentOptions(https.globalAgent), state.httpsLookup);
  if (state.undici) {
    state.undici.module.setGlobalDispatcher(state.undici.previous);
    await state.undici.agent.close();
  }
}

function agentOptions(agent: http.Agent): { lookup?: unknown } {
  return (agent as unknown as { options: { lookup?: unknown } }).options;
}

function restore(options: { lookup?: unknown }, previous: unknown): void {
  if (previous === undefined) delete options.lookup;
  else options.lookup = previous;
}
