// The inspector page: opens a file (picker or drag and drop), hands its bytes to the worker
// (worker.js, vhlo-core in WebAssembly) and shows what comes back. No framework: a few render
// functions over the elements of index.html, and a virtual text view for large programs.

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- the program text view

// Shows a large text without putting it in the DOM: only the lines in view (and a margin) are
// rendered, into a <pre> moved over a sizer as tall as the whole text. Lines are found once (their
// start offsets), the text is never split; search runs over a lower-cased copy made on first use.
class TextView {
  constructor(root) {
    this.root = root;
    this.sizer = root.querySelector('.sizer');
    this.pre = root.querySelector('.lines');
    this.lineHeight = parseFloat(getComputedStyle(root).getPropertyValue('--line-height')) || 18;
    this.text = '';
    this.starts = new Uint32Array([0]);
    this.lower = null;
    this.query = '';
    this.matches = []; // offsets of matches in the text
    this.current = -1;
    this.pending = false;
    root.addEventListener('scroll', () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(root);
  }

  setText(text) {
    this.text = text;
    this.lower = null;
    // Line starts: one pass of indexOf over the text.
    let starts = new Uint32Array(Math.max(1024, text.length >> 5));
    let n = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
      if (n + 1 >= starts.length) {
        const grown = new Uint32Array(starts.length * 2);
        grown.set(starts);
        starts = grown;
      }
      starts[n++] = i + 1;
    }
    starts[n] = text.length + 1;
    starts = starts.subarray(0, n + 1);
    // A final newline ends the last line rather than starting an empty one.
    this.lineCount = text.endsWith('\n') ? n - 1 : n;
    this.starts = starts;
    this.sizer.style.height = `${this.lineCount * this.lineHeight}px`;
    // A short program gets a box its size; a long one the stylesheet's 60% of the window.
    const content = this.lineCount * this.lineHeight + 24;
    this.root.style.height = content < window.innerHeight * 0.6 ? `${Math.max(content, 120)}px` : '';
    this.search(this.query, false);
    this.render();
  }

  // Empties the view without reading the layout (which, right after the report's cards are
  // filled, would lay the whole page out at once).
  clear() {
    this.text = '';
    this.lower = null;
    this.starts = new Uint32Array([0, 1]);
    this.lineCount = 0;
    this.matches = [];
    this.current = -1;
    this.sizer.style.height = '0px';
    this.pre.replaceChildren();
  }

  line(i) {
    return this.text.slice(this.starts[i], this.starts[i + 1] - 1);
  }

  lineOf(offset) {
    let lo = 0;
    let hi = this.lineCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // The lines rendered now: [first, last).
  visibleRange() {
    const margin = 30;
    const first = Math.max(0, Math.floor(this.root.scrollTop / this.lineHeight) - margin);
    const shown = Math.ceil(this.root.clientHeight / this.lineHeight) + 2 * margin;
    return [first, Math.min(this.lineCount, first + shown)];
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render();
    });
  }

  render() {
    const [first, last] = this.visibleRange();
    const currentLine = this.current >= 0 ? this.lineOf(this.matches[this.current]) : -1;
    const digits = String(this.lineCount).length;
    const parts = [];
    for (let i = first; i < last; i++) {
      const cls = i === currentLine ? 'line current' : 'line';
      parts.push(`<span class="${cls}" data-line="${i + 1}"><span class="ln">${String(i + 1).padStart(digits)}</span>${this.highlight(this.line(i))}</span>`);
    }
    this.pre.innerHTML = parts.join('');
    this.pre.style.transform = `translateY(${first * this.lineHeight}px)`;
  }

  highlight(s) {
    if (!this.query) return escapeHtml(s);
    const lower = s.toLowerCase();
    const q = this.query;
    let out = '';
    let at = 0;
    for (let i = lower.indexOf(q); i !== -1; i = lower.indexOf(q, i + q.length)) {
      out += escapeHtml(s.slice(at, i)) + '<mark>' + escapeHtml(s.slice(i, i + q.length)) + '</mark>';
      at = i + q.length;
    }
    return out + escapeHtml(s.slice(at));
  }

  // Finds every match of `query` (case-insensitive); with `jump`, scrolls to the first one.
  search(query, jump = true) {
    this.query = query.toLowerCase();
    this.matches = [];
    this.current = -1;
    if (this.query) {
      if (this.lower === null) this.lower = this.text.toLowerCase();
      const q = this.query;
      const limit = 1_000_000;
      for (let i = this.lower.indexOf(q); i !== -1 && this.matches.length < limit; i = this.lower.indexOf(q, i + q.length)) {
        this.matches.push(i);
      }
      if (this.matches.length && jump) this.step(1);
    }
    this.render();
    return this.matches.length;
  }

  step(delta) {
    if (!this.matches.length) return;
    const n = this.matches.length;
    this.current = this.current < 0 ? (delta > 0 ? 0 : n - 1) : (this.current + delta + n) % n;
    this.scrollToLine(this.lineOf(this.matches[this.current]));
    this.render();
  }

  scrollToLine(i) {
    const top = i * this.lineHeight - this.root.clientHeight / 2 + this.lineHeight;
    this.root.scrollTop = Math.max(0, top);
    // And sideways to the match (long lines: a JAX main's signature).
    if (this.current >= 0) {
      const col = this.matches[this.current] - this.starts[i];
      const charWidth = 7.5;
      const x = (col + 10) * charWidth;
      if (x < this.root.scrollLeft || x > this.root.scrollLeft + this.root.clientWidth - 80) {
        this.root.scrollLeft = Math.max(0, x - this.root.clientWidth / 3);
      }
    }
  }
}

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

// ---------------------------------------------------------------- state and the worker

const state = {
  id: 0, // the current open's id: answers to older ones are dropped
  file: null,
  summary: null,
  painted: Promise.resolve(),
  text: '',
  textOptions: { generic: false, locations: false },
  timing: {},
  t0: 0,
};

let worker = null;

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (event) => onWorkerMessage(event.data);
  worker.onerror = (event) => {
    showError(state.file ? state.file.name : 'file', { kind: 'internal', message: event.message || 'the worker failed', diagnostics: [] });
  };
  worker.postMessage({ type: 'hello' });
}

function onWorkerMessage(msg) {
  if (msg.type === 'hello') {
    $('current-version').textContent = msg.version;
    allReleases = msg.releases;
    $('engine').textContent = `Reads and writes StableHLO ${msg.version} and every release back to 0.9.0.`;
    document.body.dataset.ready = 'true';
    return;
  }
  if (msg.id !== state.id) return; // an answer about a file no longer open
  switch (msg.type) {
    case 'summary':
      state.summary = msg.summary;
      state.timing.received = performance.now() - state.t0;
      renderSummary(msg.summary);
      state.timing.rendered = performance.now() - state.t0;
      setStatus(`${state.file.name}: printing the program…`);
      // The text (already printing in the worker) is shown once this first view is painted.
      state.painted = new Promise((done) => afterPaint(() => {
        state.timing.firstView = performance.now() - state.t0;
        state.timing.read = msg.ms.read;
        state.timing.summary = msg.ms.summary;
        renderTiming();
        document.body.dataset.state = 'summary';
        done();
      }));
      break;
    case 'text':
      state.painted.then(() => {
        if (msg.id !== state.id) return;
        state.text = msg.text;
        textView.setText(msg.text);
        $('text-info').textContent = `${textView.lineCount.toLocaleString()} lines, ${formatBytes(msg.text.length)}`;
        afterPaint(() => {
          if (state.timing.text === undefined) state.timing.text = performance.now() - state.t0;
          renderTiming();
          document.body.dataset.textState = `${msg.options.generic ? 'generic' : 'pretty'}-${msg.options.locations ? 'loc' : 'noloc'}`;
          setStatus(`${state.file.name}: ${state.summary.stablehlo_ops.toLocaleString()} ops`);
        });
      });
      break;
    case 'minimum':
      state.painted.then(() => {
        if (msg.id !== state.id) return;
        renderMinimum(msg.minimum);
        state.timing.minimum = msg.ms;
        renderTiming();
        document.body.dataset.minimum = 'done';
      });
      break;
    case 'retargeted':
      download(new Blob([msg.bytes], { type: 'application/octet-stream' }), retargetName(msg.version));
      $('retarget-status').textContent = `written for ${msg.version}: ${formatBytes(msg.bytes.byteLength)}`;
      break;
    case 'error':
      if (msg.request === 'retarget') {
        $('retarget-status').textContent = '';
        showError(state.file.name, msg.error, { keepReport: true, title: `Cannot write for ${msg.version}:` });
      } else {
        showError(state.file.name, msg.error);
      }
      if (msg.error.kind === 'panic') {
        worker.terminate();
        startWorker();
      }
      break;
  }
}

function afterPaint(f) {
  requestAnimationFrame(() => setTimeout(f, 0));
}

// ---------------------------------------------------------------- opening files

async function openFile(file) {
  state.id += 1;
  const id = state.id;
  state.file = file;
  state.summary = null;
  state.text = '';
  state.timing = {};
  state.t0 = performance.now();
  document.body.dataset.state = 'loading';
  delete document.body.dataset.minimum;
  delete document.body.dataset.textState;
  setStatus(`reading ${file.name}…`);
  const bytes = await file.arrayBuffer();
  if (id !== state.id) return;
  state.timing.loaded = performance.now() - state.t0;
  worker.postMessage({ id, type: 'open', name: file.name, bytes, textOptions: { ...state.textOptions } }, [bytes]);
}

function setStatus(s) {
  $('status').textContent = s;
}

// ---------------------------------------------------------------- rendering

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c);
  return e;
}

function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function fillRows(table, rows) {
  const body = table.querySelector('tbody');
  body.replaceChildren(...rows.map((cells) => el('tr', {}, ...cells.map((c) => (c instanceof Node ? el('td', {}, c) : el('td', { text: c ?? '' }))))));
}

const KINDS = { artifact: 'portable artifact', jax_export: 'jax.export serialized file', text: 'MLIR text' };

function renderSummary(r) {
  $('welcome').hidden = true;
  $('error').hidden = true;
  $('report').hidden = false;
  $('file-name').textContent = r.name;
  $('kind').textContent = KINDS[r.kind] || r.kind;
  $('size').textContent = `${formatBytes(r.size)} (${r.size.toLocaleString()} bytes)`;
  $('producer').textContent = r.producer ?? '—';
  $('bytecode-version').textContent = r.bytecode_version ?? '—';
  $('target-version').textContent = r.target_version
    ? `StableHLO ${r.target_version}`
    : r.read_at
      ? `no version named by the producer; read at ${r.read_at}, the oldest its ops allow`
      : 'not an artifact';
  $('target-version').dataset.version = r.target_version ?? '';
  $('minimum-version').textContent = 'computing…';
  $('minimum-version').className = 'pending';
  $('minimum-version').dataset.version = '';
  $('op-count').textContent = `${r.stablehlo_ops.toLocaleString()} (${r.ops.toLocaleString()} as read)`;
  $('op-count').dataset.ops = r.ops;
  $('dialects').textContent = r.dialects.join(', ');

  // Readable by
  const chips = r.readable_by.map((rel) => el('li', { 'data-version': rel.version }, rel.version, el('span', { class: 'date', text: rel.date ?? '' })));
  $('readable-by').replaceChildren(...chips);
  $('readable-note').textContent = r.kind === 'text'
    ? 'Text is not an artifact: serialize it for a release below.'
    : r.readable_by.length
      ? `StableHLO ${r.readable_by[0].version} and every later release (${r.readable_by.length}), as it is:`
      : `No release this reader knows (it is newer than ${r.current_version}).`;
  $('blockers').hidden = !r.vhlo_blockers.length;
  fillRows($('blockers').querySelector('table'), r.vhlo_blockers.map((d) => [d.op, d.location, d.subject, d.rule]));

  // Retarget: every release until the minimum version is known.
  $('retarget-label').textContent = r.kind === 'text' ? 'Serialize for' : 'Retarget to';
  fillRetarget(allReleases.length ? allReleases : r.readable_by, r.target_version ?? r.current_version);
  $('retarget-status').textContent = '';

  // jax.export
  const jax = r.jax_export;
  $('jax-card').hidden = !jax;
  if (jax) {
    $('jax-function').textContent = jax.function_name;
    $('jax-platforms').textContent = jax.platforms.join(', ');
    $('jax-devices').textContent = jax.nr_devices;
    $('jax-in').textContent = jax.in_avals.join(', ') || '—';
    $('jax-out').textContent = jax.out_avals.join(', ') || '—';
    $('jax-versions').textContent = `serialization v${jax.serialization_version}, calling convention v${jax.calling_convention_version}` +
      (jax.disabled_checks ? `, ${jax.disabled_checks} disabled check(s)` : '') +
      (jax.ordered_effects + jax.unordered_effects ? `, ${jax.ordered_effects + jax.unordered_effects} effect(s)` : '');
    $('jax-module').textContent = `${jax.module_len.toLocaleString()} bytes at byte ${jax.module_offset.toLocaleString()}`;
  }

  renderHistogram(r);
  renderFunctions(r.functions);

  $('custom-calls-count').textContent = r.custom_calls.length ? `(${r.custom_calls.length})` : '';
  $('custom-calls-none').hidden = r.custom_calls.length > 0;
  $('custom-calls').hidden = !r.custom_calls.length;
  fillRows($('custom-calls'), r.custom_calls.map((c) => [c.target, String(c.count), c.api_version ?? '', c.location]));

  $('meshes-none').hidden = r.meshes.length > 0;
  $('meshes').hidden = !r.meshes.length;
  fillRows($('meshes'), r.meshes.map((m) => [`@${m.name}`, m.axes.length ? m.axes.map(([a, n]) => `${a}=${n}`).join(' × ') : m.mesh, String(m.axes.reduce((p, [, n]) => p * n, 1))]));
  $('shardings').hidden = !r.shardings.length;
  $('shardings-note').textContent = !r.shardings_total
    ? 'No sharding annotations.'
    : r.shardings_total > r.shardings.length
      ? `${r.shardings_total.toLocaleString()} sharding annotations; the first ${r.shardings.length} are listed.`
      : `${r.shardings_total} sharding annotation${r.shardings_total === 1 ? '' : 's'}:`;
  fillRows($('shardings'), r.shardings.map((s) => [s.owner, s.place, s.attr, s.value]));

  textView.clear();
  $('text-info').textContent = 'printing…';
}

function renderHistogram(r) {
  const max = r.histogram.length ? r.histogram[0].count : 1;
  const rows = [];
  for (const { op, count } of r.histogram) {
    rows.push(
      el('span', { class: 'name', text: op, title: op }),
      el('div', { class: 'track' }, el('div', { class: 'fill', 'data-op': op, 'data-count': String(count), style: '' })),
      el('span', { class: 'n', text: count.toLocaleString() }),
    );
  }
  $('histogram').replaceChildren(...rows);
  // Widths after insertion (style attributes set through the CSSOM).
  for (const fill of $('histogram').querySelectorAll('.fill')) {
    fill.style.width = `${(100 * Number(fill.dataset.count)) / max}%`;
  }
  $('hist-total').textContent = `(${r.stablehlo_ops.toLocaleString()} in ${r.histogram.length} kinds)`;
  fillRows($('vhlo-histogram'), r.vhlo_histogram.map((c) => [String(c.count), c.op, c.range ?? '']));
  for (const [i, tr] of [...$('vhlo-histogram').querySelectorAll('tbody tr')].entries()) {
    tr.dataset.op = r.vhlo_histogram[i].op;
    tr.dataset.count = String(r.vhlo_histogram[i].count);
  }
}

function renderFunctions(functions) {
  $('functions-count').textContent = `(${functions.length})`;
  const shown = functions.slice(0, 200);
  const items = shown.map((f) => {
    const sig = f.signature;
    const long = sig.length > 2000;
    const code = el('code', { text: long ? sig.slice(0, 2000) + ' …' : sig });
    const li = el('li', { 'data-name': f.name },
      el('span', { class: 'fname', text: `@${f.name}` }),
      el('span', { class: 'meta', text: `${f.visibility} · ${f.args.length} → ${f.results.length} · ${f.ops.toLocaleString()} ops` }),
      code);
    if (long) {
      const more = el('button', { type: 'button', class: 'button small more', text: `show all ${sig.length.toLocaleString()} characters` });
      more.onclick = () => { code.textContent = sig; more.remove(); };
      li.append(more);
    }
    return li;
  });
  if (functions.length > shown.length) items.push(el('li', { class: 'note', text: `and ${functions.length - shown.length} more` }));
  $('functions').replaceChildren(...items);
}

function renderMinimum(m) {
  const dd = $('minimum-version');
  dd.className = '';
  if (m.version) {
    dd.textContent = `StableHLO ${m.version} (the oldest release it can be written for)`;
    dd.dataset.version = m.version;
    const writable = new Set(m.writable_for.map((r) => r.version));
    fillRetarget(allReleases.length ? allReleases : m.writable_for, state.summary.target_version ?? state.summary.read_at ?? m.version, writable);
  } else {
    dd.textContent = `none: ${m.blockers.length} blocker(s) at every release`;
    dd.dataset.version = '';
    fillRetarget(allReleases, null, new Set());
  }
}

let allReleases = [];

// The releases to retarget to; with `writable`, those that cannot hold the program are marked
// (choosing one shows why, op by op).
function fillRetarget(releases, selected, writable) {
  const select = $('retarget-version');
  select.replaceChildren(...releases.map((r) => {
    let label = r.date ? `${r.version} (${r.date})` : r.version;
    if (writable && !writable.has(r.version)) label += ' – too old for this program';
    return el('option', { value: r.version, text: label });
  }));
  // The release written for (a patch release's x.y.0), else the newest.
  const floor = selected && selected.replace(/\.\d+$/, '.0');
  if (floor && releases.some((r) => r.version === floor)) select.value = floor;
  else if (releases.length) select.value = releases.at(-1).version;
  select.disabled = !releases.length;
}

function retargetName(version) {
  const base = state.file.name.replace(/(\.mlir)?(\.bc|\.mlirbc|\.jax_exported|\.bin)?$/, '');
  return `${base}.${version.replaceAll('.', '_')}.mlir.bc`;
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function showError(name, e, { keepReport = false, title = 'Cannot read' } = {}) {
  $('welcome').hidden = true;
  if (!keepReport) {
    $('report').hidden = true;
    state.timing = {};
    renderTiming();
  }
  $('error-title').textContent = title;
  $('error').hidden = false;
  $('error-file').textContent = name;
  $('error-message').textContent = e.message;
  const facts = [];
  const fact = (k, v) => facts.push(el('dt', { text: k }), el('dd', { text: String(v) }));
  fact('kind', e.kind);
  if (e.offset !== undefined && e.offset !== null) fact('byte offset', e.offset);
  if (e.section) fact('section', e.section);
  if (e.line) fact('line, column', `${e.line}:${e.column}`);
  $('error-where').replaceChildren(...facts);
  $('error').dataset.kind = e.kind;
  $('error').dataset.offset = e.offset ?? '';
  const diags = e.diagnostics || [];
  $('error-diagnostics').hidden = !diags.length;
  fillRows($('error-diagnostics'), diags.map((d) => [d.op, d.location, d.subject, d.needs ?? '', d.rule]));
  setStatus(`${name}: error`);
  document.body.dataset.state = 'error';
  if (keepReport) $('error').scrollIntoView({ block: 'nearest' });
}

function renderTiming() {
  const t = state.timing;
  const parts = [];
  if (t.firstView !== undefined) parts.push(`first view ${t.firstView.toFixed(0)} ms`);
  if (t.text !== undefined) parts.push(`text ${t.text.toFixed(0)} ms`);
  if (t.minimum !== undefined) parts.push(`minimum version +${t.minimum.toFixed(0)} ms`);
  $('timing').textContent = parts.join(' · ');
  $('timing').dataset.firstView = t.firstView ?? '';
  $('timing').dataset.text = t.text ?? '';
}

// ---------------------------------------------------------------- wiring

const textView = new TextView($('text'));

$('file').addEventListener('change', (e) => {
  const file = e.target.files[0];
  if (file) openFile(file);
  e.target.value = '';
});

let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; $('dropzone').hidden = false; });
window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; $('dropzone').hidden = true; } });
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  $('dropzone').hidden = true;
  const file = e.dataTransfer.files[0];
  if (file) openFile(file);
});

for (const [box, key] of [['opt-generic', 'generic'], ['opt-locations', 'locations']]) {
  $(box).addEventListener('change', (e) => {
    state.textOptions[key] = e.target.checked;
    if (!state.summary) return;
    delete document.body.dataset.textState;
    $('text-info').textContent = 'printing…';
    worker.postMessage({ id: state.id, type: 'text', textOptions: { ...state.textOptions } });
  });
}

let searchTimer = null;
$('search').addEventListener('input', (e) => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => runSearch(e.target.value), 150);
});
$('search').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    e.preventDefault();
    clearTimeout(searchTimer);
    if (textView.query !== e.target.value.toLowerCase()) runSearch(e.target.value);
    else { textView.step(e.shiftKey ? -1 : 1); renderSearchCount(); }
  }
});
$('search-next').onclick = () => { textView.step(1); renderSearchCount(); };
$('search-prev').onclick = () => { textView.step(-1); renderSearchCount(); };

function runSearch(q) {
  textView.search(q);
  renderSearchCount();
}

function renderSearchCount() {
  const n = textView.matches.length;
  $('search-count').textContent = !textView.query ? '' : n ? `${textView.current + 1} of ${n.toLocaleString()}` : 'no match';
  $('search-count').dataset.count = String(n);
}

$('retarget').addEventListener('submit', (e) => {
  e.preventDefault();
  const version = $('retarget-version').value;
  if (!version || !state.summary) return;
  $('retarget-status').textContent = `writing for ${version}…`;
  worker.postMessage({ id: state.id, type: 'retarget', version });
});

$('jax-save').addEventListener('click', () => {
  const jax = state.summary && state.summary.jax_export;
  if (!jax) return;
  const base = state.file.name.replace(/\.[^.]*$/, '');
  download(state.file.slice(jax.module_offset, jax.module_offset + jax.module_len), `${base}.mlir.bc`);
});

startWorker();

// For tests and the console: the page's state (the program text as shown, the report).
window.inspector = {
  get text() { return state.text; },
  get summary() { return state.summary; },
  get timing() { return { ...state.timing }; },
  textView,
};
