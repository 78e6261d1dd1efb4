/**
 * Typed views of resource records. `data` has the shape dns-packet gives each type, so the
 * JSON of a result reads like dns-packet's; `rdata` is the record's RDATA exactly as received.
 */

/** RFC 2782 */
export interface SrvData {
  readonly priority: number;
  readonly weight: number;
  readonly port: number;
  /** "." means the service is decidedly not available at this name. */
  readonly target: string;
}

/** RFC 3403 */
export interface NaptrData {
  readonly order: number;
  readonly preference: number;
  readonly flags: string;
  readonly services: string;
  readonly regexp: string;
  /** "." when the record uses a regexp instead. */
  readonly replacement: string;
}

/** RFC 1035 section 3.3.9 */
export interface MxData {
  readonly preference: number;
  readonly exchange: string;
}

/** RFC 1035 section 3.3.13 */
export interface SoaData {
  readonly mname: string;
  readonly rname: string;
  readonly serial: number;
  readonly refresh: number;
  readonly retry: number;
  readonly expire: number;
  readonly minimum: number;
}

/** RFC 6698 */
export interface TlsaData {
  readonly usage: number;
  readonly selector: number;
  readonly matchingType: number;
  readonly certificate: Uint8Array;
}

export interface RecordDataMap {
  A: string;
  AAAA: string;
  CNAME: string;
  NS: string;
  PTR: string;
  /** RFC 6672: the target, expanded when it came compressed. */
  DNAME: string;
  MX: MxData;
  TXT: readonly string[];
  SRV: SrvData;
  NAPTR: NaptrData;
  SOA: SoaData;
  TLSA: TlsaData;
}

export type TypedRecordName = keyof RecordDataMap;

export interface RecordBase {
  /** Owner name. */
  readonly name: string;
  /** RR type number. */
  readonly rrtype: number;
  readonly class: number;
  /** Seconds, this record's own TTL (less the time it spent in a cache). */
  readonly ttl: number;
  /** The RDATA as received; names inside it may be compressed pointers into the packet. */
  readonly rdata: Uint8Array;
}

export interface TypedRecord<T extends TypedRecordName> extends RecordBase {
  readonly type: T;
  readonly data: RecordDataMap[T];
}

/** Any type without a typed view: its RDATA, raw (RFC 3597). */
export interface RawRecord extends RecordBase {
  /** The type's mnemonic, or TYPEnnn. */
  readonly type: string;
  readonly data: Uint8Array;
}

export type AnyTypedRecord = { [K in TypedRecordName]: TypedRecord<K> }[TypedRecordName];
export type DnsRecord = AnyTypedRecord | RawRecord;

/** The record type a query for T returns. */
export type RecordOf<T> = T extends TypedRecordName ? TypedRecord<T> : DnsRecord;

/** Narrows a record to a typed view. */
export function isRecordType<T extends TypedRecordName>(
  record: DnsRecord,
  type: T,
): record is DnsRecord & TypedRecord<T> {
  return record.type === type;
}

/** A record that failed validation and was left out of the result, with the rule it broke. */
export interface DroppedRecord {
  readonly section: 'answer' | 'authority' | 'additional';
  readonly name: string;
  readonly type: string;
  /** A short, stable identifier of the rule: "rdlength", "naptr-flags", ... */
  readonly rule: string;
  readonly reason: string;
}
