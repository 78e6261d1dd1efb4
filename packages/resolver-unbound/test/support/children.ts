/** The child processes of this process, to check that libunbound resolves on threads and never forks. */
import { readFileSync, readdirSync } from 'node:fs';

/** This process's children, from every thread's /proc children list. */
export function children(): string[] {
  const ids = new Set<string>();
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    const list = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim();
    for (const id of list.split(/\s+/).filter(Boolean)) ids.add(id);
  }
  return [...ids].sort();
}
