export { run, USAGE } from './cli.js';
export { ExitCode } from './exit-codes.js';
export { buildCore, type BackendFlags } from './backends.js';
export type { Io } from './io.js';
export { resultToJson, recordToJson, type ResultJson } from './output/json.js';
export { resultToText, dnssecState } from './output/dig.js';
