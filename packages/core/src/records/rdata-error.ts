/** A record's RDATA broke a rule; the record is dropped with this rule and reason. */
export class RdataError extends Error {
  override name = 'RdataError';
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}
