// The inspector page in headless Chromium (Debian's chromium, driven by playwright-core), served
// from localhost: real artifacts opened through the file picker, every value shown checked against
// what vhlo-translate prints for the same file. Each test saves a screenshot in
// web/test-results/<test>/.
//
//   node --test web/tests/browser.test.mjs
// Environment: VHLO_CHROMIUM (default /usr/bin/chromium), VHLO_TRANSLATE (the CLI), VHLO_WEB_BIG
// (an artifact of ~100k ops whose opening is timed; CI makes the 100k-op transformer's).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../serve.mjs';
import { FIXTURES, JAX, JAX_MESH, REAL, SUITE, cli, cliInspect, cliText, need, opCounts, resultsDir } from './helpers.mjs';

const CHROMIUM = process.env.VHLO_CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const TIMEOUT = 120_000;

let server;
let url;
let context;
let profile;
const tmp = mkdtempSync(join(tmpdir(), 'vhlo-web-browser-'));

before(async () => {
  ({ server, url } = await serve());
  profile = mkdtempSync(join(tmpdir(), 'vhlo-web-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 1000 },
    acceptDownloads: true,
  });
});

after(async () => {
  await context?.close();
  server?.close();
  rmSync(profile, { recursive: true, force: true });
});

// A fresh page on the inspector; page errors fail the test.
async function newPage(t) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  t.after(async () => {
    await page.close();
    assert.deepEqual(errors, [], 'errors in the page');
  });
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { timeout: TIMEOUT });
  return page;
}

async function shot(page, t, name = 'screenshot') {
  const path = join(resultsDir(t.name), `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

// Opens FILE through the file picker and waits for its report, text and minimum version.
async function open(page, file) {
  await page.evaluate(() => { document.body.dataset.state = 'picking'; });
  await page.setInputFiles('#file', file);
  await page.waitForFunction((name) => (document.body.dataset.state === 'error' && document.getElementById('error-file').textContent === name)
    || (document.body.dataset.minimum === 'done' && document.body.dataset.textState && window.inspector.summary?.name === name), basename(file), { timeout: TIMEOUT });
}

const text = (page, sel) => page.locator(sel).textContent();
const data = (page, sel, key) => page.locator(sel).evaluate((e, k) => e.dataset[k], key);

// The header, the histograms and the text of FILE as shown, against vhlo-translate.
async function checkAgainstCli(page, file) {
  const want = cliInspect(file);
  assert.equal(await text(page, '#file-name'), basename(file));
  assert.equal(await text(page, '#producer'), want.producer);
  assert.equal(await text(page, '#bytecode-version'), String(want.bytecode_version));
  assert.equal(await data(page, '#target-version', 'version'), want.target_version ?? '');
  assert.equal(await data(page, '#minimum-version', 'version'), want.minimum_version ?? '');
  assert.equal(await data(page, '#op-count', 'ops'), String(want.ops));
  assert.equal(await text(page, '#dialects'), want.dialects.join(', '));
  // Readable by: the release it was written for (or is read at) and every later one.
  const chips = await page.locator('#readable-by li').evaluateAll((lis) => lis.map((li) => li.dataset.version));
  assert.ok(chips.length > 0);
  assert.equal(cliInspect(file, chips[0]).readable_by.readable, true);
  // (Releases are listed by their x.y.0: a 1.16.1 artifact is read by 1.16.x and later.)
  if (want.target_version) assert.equal(chips[0], want.target_version.replace(/\.\d+$/, '.0'));
  // The retarget menu starts at the release it was written for (read at).
  const readAt = await page.evaluate(() => window.inspector.summary.read_at);
  assert.equal(await page.inputValue('#retarget-version'), readAt.replace(/\.\d+$/, '.0'));
  // The VHLO histogram is inspect's; the bars count the printed program's ops.
  const vhlo = await page.locator('#vhlo-histogram tbody tr').evaluateAll((trs) => trs.map((tr) => ({ op: tr.dataset.op, count: Number(tr.dataset.count) })));
  assert.deepEqual(vhlo, want.histogram);
  const bars = await page.locator('#histogram .fill').evaluateAll((fs) => fs.map((f) => [f.dataset.op, Number(f.dataset.count)]));
  assert.deepEqual(new Map(bars), opCounts(cliText(file, { generic: true })));
  // The text: all of it, and the lines on screen.
  await checkText(page, file, { generic: false, locations: false });
}

async function checkText(page, file, opts) {
  const expected = cliText(file, opts);
  assert.equal(await page.evaluate(() => window.inspector.text), expected, `${file} ${JSON.stringify(opts)}`);
  const shown = await page.locator('#text .line').evaluateAll((ls) => ls.map((l) => [Number(l.dataset.line), l.textContent.replace(/^\s*\d+/, '')]));
  const lines = expected.split('\n');
  assert.ok(shown.length > 0);
  for (const [n, s] of shown) assert.equal(s, lines[n - 1], `line ${n}`);
}

async function setOptions(page, { generic, locations }) {
  await page.evaluate(() => delete document.body.dataset.textState);
  if ((await page.isChecked('#opt-generic')) !== generic) await page.click('#opt-generic');
  if ((await page.isChecked('#opt-locations')) !== locations) await page.click('#opt-locations');
  const state = `${generic ? 'generic' : 'pretty'}-${locations ? 'loc' : 'noloc'}`;
  await page.waitForFunction((s) => document.body.dataset.textState === s, state, { timeout: TIMEOUT });
}

test('suite artifacts: header, histogram and text as vhlo-translate prints them', async (t) => {
  const page = await newPage(t);
  const files = ['stablehlo_legalize_to_vhlo.0_9_0.mlir.bc', 'stablehlo_legalize_to_vhlo.1_20_0.mlir.bc'].map((f) => join(SUITE, f)).filter(need);
  if (!files.length) return t.skip('no compatibility suite');
  for (const file of files) {
    await open(page, file);
    await checkAgainstCli(page, file);
  }
  // The text options print the other forms.
  const file = files.at(-1);
  await setOptions(page, { generic: true, locations: false });
  await checkText(page, file, { generic: true, locations: false });
  await setOptions(page, { generic: true, locations: true });
  await checkText(page, file, { generic: true, locations: true });
  await setOptions(page, { generic: false, locations: true });
  await checkText(page, file, { generic: false, locations: true });
  await shot(page, t);
});

test('JAX fixtures: header, histogram, functions and text', async (t) => {
  const page = await newPage(t);
  for (const file of [join(JAX, 'attention.1_17_0.mlir.bc'), join(JAX, 'cond_switch.0_9_0.mlir.bc'), join(JAX, 'quantized.1_10_0.mlir.bc')]) {
    await open(page, file);
    await checkAgainstCli(page, file);
    // Each function of the text is listed, with its visibility.
    const program = cliText(file);
    const funcs = [...program.matchAll(/func\.func (public |private )?@([\w$.-]+)/g)].map((m) => m[2]);
    const listed = await page.locator('#functions li[data-name]').evaluateAll((lis) => lis.map((li) => li.dataset.name));
    assert.deepEqual(listed, funcs);
  }
  await shot(page, t);
});

test('Shardy: meshes and shardings as the program text has them', async (t) => {
  const page = await newPage(t);
  const files = [join(JAX_MESH, 'shard_map_psum.jax_export.mlir.bc'), join(JAX_MESH, 'named_sharding_io.jax_export.mlir.bc'),
    join(REAL, 'jax.export_with_specified_sharding.serializations.4.mlir.bc')].filter(need);
  for (const file of files) {
    await open(page, file);
    await checkAgainstCli(page, file);
    const program = cliText(file);
    const meshes = [...program.matchAll(/sdy\.mesh @([\w$.-]+) = <\[([^\]]*)\]/g)].map((m) => [`@${m[1]}`, m[2].replaceAll('"', '').replaceAll(', ', ' × ')]);
    const shownMeshes = await page.locator('#meshes tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]));
    assert.deepEqual(shownMeshes, meshes, file);
    assert.ok(meshes.length > 0, file);
    // Every sharding attribute in the text is listed, as often as it occurs.
    const inText = [...program.matchAll(/sdy\.sharding = (#sdy\.sharding<[^>]*>)/g)].map((m) => m[1]).sort();
    const listed = await page.locator('#shardings tbody tr').evaluateAll((trs) => trs.filter((tr) => tr.cells[2].textContent === 'sdy.sharding' && tr.cells[3].textContent.startsWith('#sdy.sharding<')).map((tr) => tr.cells[3].textContent));
    assert.deepEqual(listed.sort(), inText, file);
  }
  await shot(page, t);
});

test('an artifact from a 2023 producer (MLIRxxx-trunk) reads at the version of its ops', async (t) => {
  const name = 'jax.cpu_ducc_fft.data_2023_03_17';
  const file = join(REAL, `${name}.mlir.bc`);
  if (!need(file)) return t.skip('no real-artifacts');
  const entry = JSON.parse(readFileSync(join(REAL, 'index.json'), 'utf8')).find((e) => e.name === name);
  assert.equal(entry.producer, 'MLIRxxx-trunk');
  assert.match(entry.date, /^2023-/);
  const page = await newPage(t);
  await open(page, file);
  await checkAgainstCli(page, file);
  assert.match(await text(page, '#target-version'), /no version named by the producer/);
  // Its custom call targets are those the index lists.
  const targets = await page.locator('#custom-calls tbody tr').evaluateAll((trs) => trs.map((tr) => tr.cells[0].textContent));
  assert.deepEqual(targets, entry.custom_call_targets);
  await shot(page, t);
});

test('a truncated file shows an error at its byte offset and the page keeps working', async (t) => {
  const page = await newPage(t);
  const good = join(JAX, 'attention.1_17_0.mlir.bc');
  await open(page, good);
  for (const n of [20, 700, 1200]) {
    const cut = join(tmp, `attention.cut${n}.mlir.bc`);
    writeFileSync(cut, readFileSync(good).subarray(0, n));
    await open(page, cut);
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'error');
    const cliError = cli(['--deserialize', cut]).stderr;
    const offset = Number(cliError.match(/byte (\d+):/)[1]);
    assert.equal(Number(await data(page, '#error', 'offset')), offset);
    const message = await text(page, '#error-message');
    assert.ok(message.includes(`byte ${offset}`), message);
    assert.ok(cliError.includes(message), `${cliError} / ${message}`);
    assert.ok(await page.isVisible('#error'));
    assert.ok(await page.isHidden('#report'));
    if (n === 700) await shot(page, t, 'error');
  }
  // An artifact from a newer StableHLO (the suite's invalid_vhlo_future) is refused at the op this
  // reader lacks, naming the newer producer, as the CLI does.
  const future = join(SUITE, 'invalid_vhlo_future.mlir.bc');
  if (need(future)) {
    await open(page, future);
    assert.equal(await data(page, '#error', 'kind'), 'bytecode');
    const message = await text(page, '#error-message');
    assert.match(message, /newer than this reader/);
    assert.ok(cli(['--deserialize', future]).stderr.includes(message), message);
  }
  // A program refused with diagnostics shows them with op and location.
  const tan = join(tmp, 'tan.mlir');
  writeFileSync(tan, 'func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %x : tensor<f32>\n  return %0 : tensor<f32>\n}\n');
  await open(page, tan);
  await page.selectOption('#retarget-version', '1.0.0');
  await page.click('#retarget button');
  await page.waitForSelector('#error-diagnostics:not([hidden])', { timeout: TIMEOUT });
  const row = await page.locator('#error-diagnostics tbody tr').first().evaluate((tr) => [...tr.cells].map((c) => c.textContent));
  assert.match(row[0], /tan/);
  assert.match(row[1], /tan\.mlir/);
  assert.equal(row[3], '1.4.0');
  await shot(page, t, 'diagnostics');
  // And the page still opens a good file.
  await open(page, good);
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'summary');
  assert.ok(await page.isHidden('#error'));
  await checkAgainstCli(page, good);
  await shot(page, t);
});

test('retarget downloads the artifact vhlo-translate --retarget writes', async (t) => {
  const page = await newPage(t);
  const file = join(JAX, 'attention.1_17_0.mlir.bc');
  await open(page, file);
  for (const version of ['1.5.0', '0.9.0']) {
    await page.selectOption('#retarget-version', version);
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: TIMEOUT }), page.click('#retarget button')]);
    assert.equal(download.suggestedFilename(), `attention.1_17_0.${version.replaceAll('.', '_')}.mlir.bc`);
    const saved = join(tmp, download.suggestedFilename());
    await download.saveAs(saved);
    const out = join(tmp, `cli.${version}.bc`);
    assert.equal(cli(['--retarget', file, `--target=${version}`, '-o', out]).status, 0);
    assert.deepEqual(readFileSync(saved), readFileSync(out));
    // The CLI reads it back to the same program, written for that version.
    assert.equal(cliText(saved, { generic: true, locations: true }), cliText(file, { generic: true, locations: true }));
    assert.equal(cliInspect(saved).target_version, version);
  }
  await shot(page, t);
});

test('a jax.export serialized file shows its fields and the program it holds', async (t) => {
  const page = await newPage(t);
  const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8'));
  for (const [name, want] of Object.entries(manifest.programs)) {
    const file = join(FIXTURES, `${name}.jax_exported`);
    await open(page, file);
    assert.ok(await page.isVisible('#jax-card'));
    assert.equal(await text(page, '#jax-function'), want.function_name);
    assert.equal(await text(page, '#jax-platforms'), want.platforms.join(', '));
    assert.equal(await text(page, '#jax-devices'), String(want.nr_devices));
    assert.equal(await text(page, '#jax-in'), want.in_avals.join(', '));
    assert.equal(await text(page, '#jax-out'), want.out_avals.join(', '));
    const artifact = join(FIXTURES, `${name}.mlir.bc`);
    assert.equal(await text(page, '#producer'), cliInspect(artifact).producer);
    assert.equal(await page.evaluate(() => window.inspector.text), cliText(artifact));
    // The embedded artifact can be saved as it is.
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: TIMEOUT }), page.click('#jax-save')]);
    const saved = join(tmp, `${name}.saved.bc`);
    await download.saveAs(saved);
    assert.deepEqual(readFileSync(saved), readFileSync(artifact));
    if (name === 'mlp_sharded') await shot(page, t);
  }
});

test('MLIR text opens and drops in, and search finds every match', async (t) => {
  const page = await newPage(t);
  const file = join(JAX, 'mlp.mlir');
  // Drag and drop: a DataTransfer holding the file, dropped on the page.
  const bytes = readFileSync(file).toString('base64');
  await page.evaluate(async ([name, b64]) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([data], name));
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true }));
  }, [basename(file), bytes]);
  await page.waitForFunction(() => document.body.dataset.minimum === 'done' && document.body.dataset.textState, null, { timeout: TIMEOUT });
  assert.ok(await page.isHidden('#dropzone'));
  assert.equal(await text(page, '#kind'), 'MLIR text');
  assert.equal(await page.evaluate(() => window.inspector.text), cliText(file));
  await setOptions(page, { generic: false, locations: true });
  assert.equal(await page.evaluate(() => window.inspector.text), cliText(file, { locations: true }));
  // Search: the count of matches, and the current one on screen.
  const program = cliText(file, { locations: true });
  const query = 'stablehlo.dot_general';
  await page.fill('#search', query);
  await page.press('#search', 'Enter');
  const count = program.split(query).length - 1;
  assert.ok(count > 0);
  await page.waitForFunction((n) => document.getElementById('search-count').dataset.count === String(n), count);
  await page.click('#search-next');
  const current = await page.locator('#text .line.current').textContent();
  assert.ok(current.includes(query), current);
  assert.ok((await page.locator('#text .line.current mark').count()) > 0);
  await shot(page, t);
});

test('a 100k-op program opens without freezing the tab (timed)', async (t) => {
  const big = process.env.VHLO_WEB_BIG;
  if (!big || !existsSync(big)) {
    if (process.env.CI === 'true' && big) throw new Error(`VHLO_WEB_BIG=${big} is missing`);
    return t.skip('set VHLO_WEB_BIG to an artifact of ~100k ops');
  }
  const page = await newPage(t);
  // While the program is read and printed, the page keeps answering: a timer on the page's
  // thread records its longest gap.
  await page.evaluate(() => {
    window.gaps = [];
    let last = performance.now();
    window.ticker = setInterval(() => { const now = performance.now(); window.gaps.push(now - last); last = now; }, 10);
  });
  await open(page, big);
  const timing = await page.evaluate(() => window.inspector.timing);
  const longest = await page.evaluate(() => { clearInterval(window.ticker); return Math.max(...window.gaps); });
  const summary = await page.evaluate(() => window.inspector.summary);
  const report = { file: big, ops: summary.stablehlo_ops, bytes: summary.size, ...timing, longestMainThreadGapMs: longest };
  writeFileSync(join(resultsDir(t.name), 'timing.json'), JSON.stringify(report, null, 1) + '\n');
  console.log(`# 100k-op open: ${JSON.stringify(report)}`);
  assert.ok(summary.stablehlo_ops > 90_000, `${summary.stablehlo_ops} ops`);
  assert.equal(await page.evaluate(() => window.inspector.text.length), cliText(big).length);
  // Aims: first view under a second, no freeze; bounds loose enough for a loaded CI machine.
  assert.ok(timing.firstView < 5000, `first view after ${timing.firstView} ms`);
  assert.ok(longest < 2000, `the page's thread was blocked for ${longest} ms`);
  // Searching the whole text, and going to the last match, stays quick.
  const t0 = Date.now();
  const query = 'stablehlo.dot_general';
  await page.fill('#search', query);
  await page.press('#search', 'Enter');
  const count = cliText(big).split(query).length - 1;
  await page.waitForFunction((n) => document.getElementById('search-count').dataset.count === String(n), count);
  await page.click('#search-prev');
  const last = await page.locator('#text .line.current').evaluate((l) => Number(l.dataset.line));
  const lines = cliText(big).split('\n');
  assert.equal(last, lines.findLastIndex((l) => l.includes(query)) + 1);
  console.log(`# search + jump: ${Date.now() - t0} ms`);
  await shot(page, t);
});
