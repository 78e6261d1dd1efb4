/** The parts of the npm `unbound` binding (0.4.3, no type definitions of its own) the bench uses. */
declare module 'unbound' {
  export interface UnboundResult {
    qname: string;
    qtype: number;
    rcode: number;
    data: Buffer[];
    answerPacket: Buffer;
    haveData: boolean;
    nxDomain: boolean;
    secure: boolean;
    bogus: boolean;
    whyBogus: string | null;
    ttl: number;
  }
  export default class Unbound {
    constructor();
    setOption(option: string, value: string | number | boolean): this;
    setStub(zone: string, address: string, prime?: boolean): this;
    addTrustAnchor(anchor: string): this;
    resolve(name: string, type?: number, klass?: number): Promise<UnboundResult>;
    static version(): string;
  }
}
