/**
 * What a stub may believe of an answer (cache-poisoning defence, RFC 5452 section 6 and the
 * "credibility" rules of RFC 2181 section 5.4.1). A stub cannot see zone cuts, so the zone that
 * answered is approximated from the question: the service labels (_sip._udp) are not a zone of
 * their own, and a zone is never below the name asked.
 */
import { isAtOrBelowText, labelEquals, nextLabelText, type Labels } from './names.js';

const UNDERSCORE = 0x5f;

/** The question's domain: the name without its leading service labels (_sip._udp.biloxi.example -> biloxi.example). */
export function serviceBase(labels: Labels): Labels {
  let i = 0;
  while (i < labels.length - 1 && labels[i]![0] === UNDERSCORE) i++;
  return labels.slice(i);
}

/** serviceBase() of a name as formatName() writes it (a DnsQuery's name): no labels made. */
export function serviceBaseText(name: string): string {
  let start = 0;
  while (name.charCodeAt(start) === UNDERSCORE) {
    const next = nextLabelText(name, start);
    if (next < 0) break;
    start = next;
  }
  return start === 0 ? name : name.slice(start);
}

/** inAdditionalBailiwick() of names as formatName() writes them (a parsed record's owner, a DnsQuery's name). */
export function inAdditionalBailiwickText(owner: string, question: string): boolean {
  return isAtOrBelowText(owner, serviceBaseText(question));
}

/**
 * Additional-section data is used only at or below the question's domain: the A/AAAA of
 * sip1.biloxi.example may come with _sip._udp.biloxi.example, not that of www.bank.example.
 */
export function inAdditionalBailiwick(owner: Labels, question: Labels): boolean {
  return isAtOrBelow(owner, serviceBase(question));
}

/**
 * A CNAME chain stays in the question's zone when its end is at or below the question's domain:
 * whatever zone answered holds those names too. Anything else (the apex, a sibling, a parent)
 * may lie in another zone: a stub cannot see zone cuts, and the zone of a name is never
 * guessed from its label count (bank.example's zone is not "example").
 */
export function chainStaysInZone(end: Labels, question: Labels): boolean {
  return isAtOrBelow(end, serviceBase(question));
}

/** True when `name` is `ancestor` or below it, label by label. */
export function isAtOrBelow(name: Labels, ancestor: Labels): boolean {
  if (ancestor.length > name.length) return false;
  const offset = name.length - ancestor.length;
  return ancestor.every((label, i) => labelEquals(label, name[offset + i]!));
}
