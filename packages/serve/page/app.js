// @ts-check
/**
 * The page of `dnscore serve`. It asks the server's JSON API and draws the answers: every RFC
 * rule (NAPTR, SRV order, the weighted draw, failover, the penalty box, the check) runs on the
 * server in dnscore itself. Text goes in with textContent only, so no answer can inject markup.
 */

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const SVG = 'http://www.w3.org/2000/svg';

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {(Node | string)[]} [children]
 */
function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @param {string} [text]
 */
function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The question as the form says it; the zone text only when the zone is the source. */
function question() {
  const transports = [...document.querySelectorAll('input[name="transport"]:checked')].map(
    (i) => /** @type {HTMLInputElement} */ (i).value,
  );
  const source = /** @type {HTMLInputElement} */ (document.querySelector('input[name="source"]:checked')).value;
  /** @type {Record<string, unknown>} */
  const q = {
    uri: /** @type {HTMLInputElement} */ ($('uri')).value.trim(),
    transports,
    ipv4: /** @type {HTMLInputElement} */ ($('ipv4')).checked,
    ipv6: /** @type {HTMLInputElement} */ ($('ipv6')).checked,
  };
  if (source === 'zone') q.zone = /** @type {HTMLTextAreaElement} */ ($('zone')).value;
  const seed = /** @type {HTMLInputElement} */ ($('seed')).value.trim();
  if (seed !== '') q.seed = Number(seed);
  return q;
}

class ApiError extends Error {
  /** @param {{code: string, message: string, line?: number}} body */
  constructor(body) {
    super(body.message);
    this.code = body.code;
    this.line = body.line;
  }
}

/**
 * @param {string} path
 * @param {Record<string, unknown>} body
 */
async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({ error: { code: 'HTTP', message: `HTTP ${res.status}` } }));
  if (!res.ok) throw new ApiError(json.error);
  return json;
}

// ---- zone editor: line numbers, and the line of a parse error ----

function drawGutter(badLine = 0) {
  const zone = /** @type {HTMLTextAreaElement} */ ($('zone'));
  const gutter = $('gutter');
  const count = zone.value.split('\n').length;
  gutter.replaceChildren();
  for (let i = 1; i <= count; i++) {
    const line = el('span', i === badLine ? { class: 'bad', 'data-line': String(i) } : {}, [String(i)]);
    gutter.append(line, i === badLine ? '' : '\n');
  }
  gutter.scrollTop = zone.scrollTop;
}

/** @param {ApiError | null} error */
function showZoneError(error) {
  const box = $('zone-error');
  const zone = /** @type {HTMLTextAreaElement} */ ($('zone'));
  if (!error) {
    box.hidden = true;
    box.textContent = '';
    zone.setAttribute('aria-invalid', 'false');
    drawGutter();
    return;
  }
  box.hidden = false;
  box.textContent = `Line ${error.line}: ${error.message.replace(/^zone text line \d+: /, '')}`;
  zone.setAttribute('aria-invalid', 'true');
  drawGutter(error.line ?? 0);
  // Select the line at fault, so the keyboard user lands on it.
  const lines = zone.value.split('\n');
  const start = lines.slice(0, (error.line ?? 1) - 1).reduce((n, l) => n + l.length + 1, 0);
  zone.setSelectionRange(start, start + (lines[(error.line ?? 1) - 1] ?? '').length);
}

/** @param {string} message */
function showFormError(message) {
  const box = $('form-error');
  box.hidden = message === '';
  box.textContent = message;
}

// ---- the step-through ----

/** @param {any} step */
function stepRow(step) {
  /** @type {(string | Node)[]} */
  let what = [];
  /** @type {(string | Node)[]} */
  let detail = [];
  let round = '';
  let cls = step.kind === 'rule' ? 'decision' : step.kind === 'skip' ? 'muted' : '';
  switch (step.kind) {
    case 'query': {
      round = String(step.round);
      what = [`${step.type} ${step.name}`];
      const head = step.error
        ? `no answer (${step.error.code}: ${step.error.message})`
        : step.bogus
          ? `${step.rcode}, DNSSEC BOGUS (${step.whyBogus ?? 'validation failed'}): not used`
          : step.records.length === 0
            ? `${step.rcode === 'NOERROR' ? 'NODATA' : step.rcode}${step.ttl > 0 ? `, negative TTL ${step.ttl}` : ''}`
            : `${step.rcode}, ${step.records.length} record(s), TTL ` +
              `${step.ttl}${step.secure ? ', DNSSEC secure' : ''}` +
              `${step.canonical ? `, alias of ${step.canonical}` : ''}`;
      detail = [el('div', {}, [head])];
      for (const r of step.records) detail.push(el('div', {}, [r]));
      for (const r of step.additional) detail.push(el('div', {}, [`+ additional ${r}`]));
      for (const r of step.dropped ?? []) detail.push(el('div', {}, [`- dropped ${r}`]));
      break;
    }
    case 'rule':
      what = [`rule ${step.rule} ${step.outcome}${step.transport ? ` -> ${step.transport.toUpperCase()}` : ''}`];
      detail = [step.reason];
      break;
    case 'naptr':
      cls = step.outcome === 'chosen' ? 'decision' : step.outcome === 'ignored' ? 'muted' : '';
      what = [`NAPTR ${step.outcome}${step.transport ? ` (${step.transport.toUpperCase()})` : ''}`];
      detail = [el('div', {}, [step.record]), el('div', {}, [step.reason])];
      break;
    case 'additional':
      what = [`additional ${step.used ? 'used' : 'ignored'}`];
      detail = [`${step.host} ${step.addresses.join(', ')} (from ${step.srv}): ${step.reason}`];
      break;
    case 'skip':
      what = ['skipped'];
      detail = [
        `${step.host}${step.port !== undefined ? `:${step.port}` : ''}` +
          `${step.transport ? ` ${step.transport.toUpperCase()}` : ''}: ${step.reason}`,
      ];
      break;
    default:
      what = ['note'];
      detail = [step.message];
  }
  return el('tr', { class: cls }, [
    el('td', {}, [round]),
    el('th', { scope: 'row' }, what),
    el('td', { class: 'records' }, detail),
  ]);
}

/**
 * DNSSEC of a target: secure only when its address and every NAPTR/SRV answer were validated
 * as secure; never better than what was validated.
 * @param {any} resolution
 * @param {any} target
 */
function targetDnssec(resolution, target) {
  const queries = resolution.steps.filter((/** @type {any} */ s) => s.kind === 'query' && !s.error);
  if (queries.some((/** @type {any} */ s) => s.bogus)) return 'bogus';
  const type = target.family === 6 ? 'AAAA' : 'A';
  const address = queries.find((/** @type {any} */ s) => s.name === target.host && s.type === type);
  const path = queries.filter((/** @type {any} */ s) => s.type === 'NAPTR' || s.type === 'SRV');
  if (target.source === 'literal') return 'none';
  if (address?.secure && path.every((/** @type {any} */ s) => s.secure || s.records.length === 0)) return 'secure';
  return 'insecure';
}

const FAULTS = [
  ['up', 'up'],
  ['silent', 'silent'],
  ['503', '503'],
  ['refuse-tcp', 'refusing TCP'],
];
/** Address -> fault, kept across draws. */
const down = new Map();

/** @param {any} resolution */
function drawResolution(resolution) {
  const steps = $('steps').querySelector('tbody');
  steps?.replaceChildren(...resolution.steps.map(stepRow));
  const body = $('targets').querySelector('tbody');
  const now = Date.now();
  body?.replaceChildren(
    ...resolution.targets.map((/** @type {any} */ t, /** @type {number} */ i) => {
      const select = /** @type {HTMLSelectElement} */ (
        el('select', { 'aria-label': `State of ${t.host} ${t.address}`, 'data-address': t.address })
      );
      for (const [value, text] of FAULTS) select.append(el('option', { value }, [text]));
      select.value = down.get(t.address) ?? 'up';
      select.addEventListener('change', () => {
        if (select.value === 'up') down.delete(t.address);
        else down.set(t.address, select.value);
        const same = document.querySelectorAll(`select[data-address="${CSS.escape(t.address)}"]`);
        for (const other of /** @type {NodeListOf<HTMLSelectElement>} */ (same)) other.value = select.value;
      });
      const dnssec = targetDnssec(resolution, t);
      const ttl = t.expires === null ? 'never expires' : `${Math.max(0, Math.round((t.expires - now) / 1000))} s`;
      return el('tr', {}, [
        el('td', {}, [String(i + 1)]),
        el('td', {}, [t.transport.toUpperCase()]),
        el('td', { class: 'mono' }, [t.address]),
        el('td', {}, [String(t.port)]),
        el('td', {}, [String(t.priority)]),
        el('td', {}, [String(t.weight)]),
        el('td', {}, [t.host]),
        el('td', {}, [t.source]),
        el('td', {}, [ttl]),
        el('td', { class: dnssec }, [dnssec]),
        el('td', {}, [select]),
      ]);
    }),
  );
  const trips = resolution.steps.filter((/** @type {any} */ s) => s.kind === 'query').length;
  $('summary').textContent =
    resolution.targets.length > 0
      ? `${resolution.targets.length} targets for ${resolution.uri}, first over ` +
        `${String(resolution.transport).toUpperCase()}; ${trips} questions asked.`
      : `No targets for ${resolution.uri}.`;
  /** @type {HTMLButtonElement} */ ($('draw-again')).disabled = false;
  /** @type {HTMLButtonElement} */ ($('run-failover')).disabled = resolution.targets.length === 0;
}

/**
 * @param {any[]} warnings sip warnings
 * @param {any[]} findings check findings
 */
function drawWarnings(warnings, findings) {
  const list = $('warnings');
  const items = [
    ...warnings.map((w) =>
      el('li', {}, [el('span', { class: 'sev-warning' }, ['warning ']), `${w.message} [${w.code}]`]),
    ),
    ...findings.map((f) =>
      el('li', {}, [
        el('span', { class: `sev-${f.severity}` }, [`${f.severity} `]),
        `${f.message} [${f.code}]`,
        el('div', { class: 'mono' }, [f.record]),
        el('div', { class: 'fix' }, [`Fix: ${f.fix}`]),
      ]),
    ),
  ];
  list.replaceChildren(...(items.length > 0 ? items : [el('li', {}, ['None: nothing to fix.'])]));
}

/**
 * Runs `work` with the page marked busy (aria-busy on the results, data-busy on the body), so
 * assistive technology and tests know when every answer of one action has been drawn.
 * @param {() => Promise<void>} work
 */
async function busy(work) {
  document.body.dataset.busy = 'true';
  $('results').setAttribute('aria-busy', 'true');
  try {
    await work();
  } finally {
    delete document.body.dataset.busy;
    $('results').setAttribute('aria-busy', 'false');
  }
}

async function step() {
  showFormError('');
  const q = question();
  try {
    const resolution = await post('/api/sip', q);
    showZoneError(null);
    drawResolution(resolution);
    const check = await post('/api/check', { target: q.uri, ...(q.zone !== undefined ? { zone: q.zone } : {}) }).catch(
      (/** @type {Error} */ e) => ({
        findings: [{ severity: 'info', code: 'check', message: e.message, record: '', fix: '' }],
      }),
    );
    drawWarnings(resolution.warnings, check.findings);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'SERVE_ERR_ZONE') showZoneError(error);
    else showFormError(error instanceof Error ? error.message : String(error));
  }
}

// ---- shares over N draws ----

async function draws() {
  const n = Number(/** @type {HTMLInputElement} */ ($('draws-n')).value);
  try {
    const result = await post('/api/draws', { ...question(), n });
    showFormError('');
    drawShares(result);
  } catch (error) {
    showFormError(error instanceof Error ? error.message : String(error));
  }
}

/** @param {any} result */
function drawShares(result) {
  const rows = result.expected.map((/** @type {any} */ e) => ({
    ...e,
    count: result.first[e.host] ?? 0,
    observed: result.n > 0 ? (result.first[e.host] ?? 0) / result.n : 0,
  }));
  const pct = (/** @type {number} */ x) => `${(100 * x).toFixed(1)}%`;
  // The exact chance of the draw, pick 0 shared equally by the records that may take it.
  const exact = (/** @type {any} */ r) => `${r.numerator}/${r.denominator} = ${pct(r.share)}`;
  const width = 560;
  const barH = 14;
  const rowH = 2 * barH + 14;
  const left = 190;
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${rowH * rows.length + 24}`,
    role: 'img',
    'aria-label': `First picks over ${result.n} draws against the exact chance of the RFC 2782 draw`,
  });
  rows.forEach((/** @type {any} */ r, /** @type {number} */ i) => {
    const y = 8 + i * rowH;
    const scale = width - left - 70;
    chart.append(svg('text', { x: 0, y: y + barH, 'font-size': 12 }, r.host));
    chart.append(svg('rect', { x: left, y, width: Math.max(1, r.observed * scale), height: barH, fill: '#0b5cad' }));
    chart.append(
      svg(
        'text',
        { x: left + r.observed * scale + 4, y: y + barH - 2, 'font-size': 11 },
        `observed ${pct(r.observed)}`,
      ),
    );
    chart.append(
      svg('rect', { x: left, y: y + barH, width: Math.max(1, r.share * scale), height: barH, fill: '#9ab7d6' }),
    );
    chart.append(
      svg('text', { x: left + r.share * scale + 4, y: y + 2 * barH - 2, 'font-size': 11 }, `exact ${pct(r.share)}`),
    );
  });
  $('chart').replaceChildren(chart);
  const table = /** @type {HTMLTableElement} */ ($('shares'));
  table.hidden = false;
  table.tBodies[0]?.replaceChildren(
    ...rows.map((/** @type {any} */ r) =>
      el('tr', {}, [
        el('th', { scope: 'row' }, [r.host]),
        el('td', {}, [String(r.priority)]),
        el('td', {}, [String(r.weight)]),
        el('td', {}, [String(r.count)]),
        el('td', {}, [pct(r.observed)]),
        el('td', {}, [exact(r)]),
      ]),
    ),
  );
}

// ---- the failover ladder ----

async function failover() {
  const body = {
    ...question(),
    down: Object.fromEntries(down),
    timerMs: Number(/** @type {HTMLSelectElement} */ ($('timer')).value),
    requests: Number(/** @type {HTMLInputElement} */ ($('requests')).value),
  };
  try {
    const ladder = await post('/api/failover', body);
    showFormError('');
    drawLadder(ladder);
  } catch (error) {
    showFormError(error instanceof Error ? error.message : String(error));
  }
}

/** @param {any} ladder */
function drawLadder(ladder) {
  const lanes = ladder.lanes;
  const colW = 170;
  const rowH = 26;
  const timeW = 70;
  const width = timeW + colW * (lanes.length + 1);
  const height = 50 + rowH * ladder.events.length;
  const x = (/** @type {string | null} */ lane) =>
    timeW + colW / 2 + colW * (lane === null ? 0 : 1 + lanes.findIndex((/** @type {any} */ l) => l.id === lane));
  const pic = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    role: 'img',
    'aria-label': `Ladder of ${ladder.requests.length} request(s); the same steps are listed as text below`,
  });
  const defs = svg('defs');
  const marker = svg('marker', {
    id: 'arrow',
    viewBox: '0 0 10 10',
    refX: 9,
    refY: 5,
    markerWidth: 7,
    markerHeight: 7,
    orient: 'auto-start-reverse',
  });
  marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#1a1a1a' }));
  defs.append(marker);
  pic.append(defs);
  const heads = [{ id: null, label: '', host: 'Proxy A (client)', fault: null }, ...lanes];
  for (const l of heads) {
    const cx = x(l.id);
    pic.append(svg('text', { x: cx, y: 14, 'text-anchor': 'middle', 'font-size': 11, 'font-weight': 600 }, l.host));
    pic.append(
      svg(
        'text',
        { x: cx, y: 28, 'text-anchor': 'middle', 'font-size': 10 },
        `${l.id === null ? '' : l.label}${l.fault ? ` (${l.fault})` : ''}`,
      ),
    );
    pic.append(
      svg('line', {
        x1: cx,
        y1: 34,
        x2: cx,
        y2: height,
        stroke: l.fault ? '#a4000f' : '#767676',
        'stroke-dasharray': l.fault ? '4 3' : '',
      }),
    );
  }
  ladder.events.forEach((/** @type {any} */ e, /** @type {number} */ i) => {
    const y = 50 + i * rowH;
    pic.append(svg('text', { x: 0, y: y + 4, 'font-size': 10 }, `${(e.at / 1000).toFixed(3)} s`));
    const client = x(null);
    const server = x(e.lane);
    const color = e.kind === 'error' || e.kind === 'timer' ? '#a4000f' : e.kind === 'penalty' ? '#7a4a00' : '#1a1a1a';
    if (e.direction === 'local') {
      const at = e.lane === null ? client : server;
      pic.append(svg('text', { x: at + 6, y: y + 4, 'font-size': 10, fill: color }, e.label));
      pic.append(svg('circle', { cx: at, cy: y, r: 3, fill: color }));
      return;
    }
    const [from, to] = e.direction === 'out' ? [client, server] : [server, client];
    pic.append(
      svg('line', {
        x1: from,
        y1: y,
        x2: to,
        y2: y,
        stroke: color,
        'marker-end': 'url(#arrow)',
        'stroke-dasharray': e.kind === 'retransmission' ? '5 3' : '',
      }),
    );
    pic.append(
      svg('text', { x: (from + to) / 2, y: y - 4, 'text-anchor': 'middle', 'font-size': 10, fill: color }, e.label),
    );
  });
  $('ladder').replaceChildren(pic);
  $('ladder-text').textContent = ladder.text.join('\n');
  $('ladder-text-box').hidden = false;
}

// ---- wiring ----

async function init() {
  const zone = /** @type {HTMLTextAreaElement} */ ($('zone'));
  zone.value = await (await fetch('/example.zone')).text();
  drawGutter();
  zone.addEventListener('input', () => drawGutter());
  zone.addEventListener('scroll', () => {
    $('gutter').scrollTop = zone.scrollTop;
  });
  for (const radio of document.querySelectorAll('input[name="source"]'))
    radio.addEventListener('change', () => {
      const live =
        /** @type {HTMLInputElement} */ (document.querySelector('input[name="source"]:checked')).value === 'live';
      $('zone-field').hidden = live;
    });
  $('question').addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(step);
  });
  $('draw-again').addEventListener('click', () => {
    const seed = /** @type {HTMLInputElement} */ ($('seed'));
    if (seed.value.trim() !== '') seed.value = String((Number(seed.value) + 1) % 4294967296);
    void busy(step);
  });
  $('draws-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(draws);
  });
  $('failover-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(failover);
  });
  const info = await fetch('/api/info')
    .then((r) => r.json())
    .catch(() => null);
  if (info) $('backend').textContent = info.backend;
  document.body.dataset.ready = 'true';
}

void init();
