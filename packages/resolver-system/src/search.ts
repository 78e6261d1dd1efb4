/**
 * The search list (resolv.conf(5)): which absolute names a name typed by a user stands for.
 * A name with a trailing dot is absolute. One with at least `ndots` dots is tried as it is
 * first, then under each search domain; one with fewer is tried under each domain first,
 * then as it is. Candidates longer than 255 octets are skipped, as glibc does.
 */
import { InvalidQueryError, formatName, parseName, type Labels } from '@dnscore/core/plugin';

export function searchCandidates(name: string, search: readonly string[], ndots: number): string[] {
  const labels = parseName(name);
  if (labels.length === 0 || isAbsolute(name) || search.length === 0) return [formatName(labels)];
  const asIs = formatName(labels);
  const under = search.flatMap((domain) => joined(labels, parseName(domain)));
  const dots = labels.length - 1;
  return dots >= ndots ? [asIs, ...under] : [...under, asIs];
}

/** True when the text ends with a dot that is not escaped ("a.b." yes, "a\." no). */
export function isAbsolute(name: string): boolean {
  if (!name.endsWith('.')) return false;
  let backslashes = 0;
  for (let i = name.length - 2; i >= 0 && name[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}

function joined(labels: Labels, domain: Labels): string[] {
  try {
    return [formatName(parseName(`${formatName(labels)}.${formatName(domain)}`))];
  } catch (error) {
    if (error instanceof InvalidQueryError) return []; // too long under this domain
    throw error;
  }
}
