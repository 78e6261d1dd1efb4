/** Options whose answers come from local data at once: no server involved, nothing leaves loopback. */
import type { UnboundOptions } from '../../src/options.js';

/** goose.feathers A 127.0.0.2 and duck.feathers A 127.0.0.4 (TTL 300); any other name meets a closed port. */
export const LOCAL_DATA: UnboundOptions = {
  hosts: false,
  resolvConf: false,
  trustAnchors: [],
  stubZones: [{ name: '.', addresses: ['127.0.0.1@9'] }],
  localZones: [{ name: 'feathers', type: 'static' }],
  localData: ['goose.feathers 300 IN A 127.0.0.2', 'duck.feathers 300 IN A 127.0.0.4'],
};
