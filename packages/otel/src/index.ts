/**
 * @dnscore/otel: OpenTelemetry spans and metrics from dnscore's diagnostics channels.
 */
export {
  DnscoreInstrumentation,
  instrumentDnscore,
  withoutUser,
  type DnscoreInstrumentationOptions,
} from './instrumentation.js';
export { ATTR, errorType } from './attributes.js';
export type { Instruments } from './metrics.js';
