/**
 * Which of a resolver's libunbound contexts asks a question: a hash of the question, so that
 * identical questions always meet in one context, whose mesh merges them into one query (and
 * whose cache then answers them). The core hands names in one presentation form (escapes made
 * canonical); libunbound compares them without regard to ASCII case, with or without the final
 * dot, and so does the hash.
 */

/** The context (0..shards-1) for a question; 0 when there is one. */
export function shardOf(name: string, type: number, rrclass: number, shards: number): number {
  if (shards <= 1) return 0;
  const end = name.endsWith('.') && name.length > 1 ? name.length - 1 : name.length;
  // FNV-1a over the name's code units (ASCII letters folded to lower case), then type and class.
  let hash = 0x811c9dc5;
  for (let i = 0; i < end; i++) {
    let code = name.charCodeAt(i);
    if (code >= 65 && code <= 90) code += 32;
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  hash = Math.imul(hash ^ type, 0x01000193);
  hash = Math.imul(hash ^ rrclass, 0x01000193);
  return (hash >>> 0) % shards;
}
