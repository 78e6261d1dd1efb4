/** "All steps as text": the failover ladder, one line per message, as the page's text view and tests read it. */
import { seconds, type LadderJson } from './simulate.js';

export function ladderText(ladder: LadderJson): string[] {
  const label = new Map(ladder.lanes.map((l) => [l.id, `${l.label} (${l.host})`]));
  const lines: string[] = [];
  for (const e of ladder.events) {
    const at = seconds(e.at).padStart(10);
    const where = e.lane ? label.get(e.lane)! : '';
    const arrow = e.direction === 'out' ? '->' : e.direction === 'in' ? '<-' : '  ';
    lines.push(e.lane ? `${at}  ${arrow} ${where}: ${e.label}` : `${at}  ${e.label}`);
  }
  for (const r of ladder.requests)
    lines.push(`request ${r.request}: ${r.answeredBy ? `answered by ${label.get(r.answeredBy)}` : 'not answered'}`);
  return lines;
}
