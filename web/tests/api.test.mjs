// The JavaScript API of vhlo-web (the module the page loads), in node: every answer against what
// vhlo-translate prints for the same file, and every failure a thrown VhloError with its fields.
//
//   node --test web/tests/api.test.mjs      (after web/build.sh and cargo build --release -p vhlo-translate)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { JAX, JAX_MESH, FIXTURES, REAL, SUITE, cli, cliInspect, cliText, loadApi, need, opCounts } from './helpers.mjs';

const api = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'vhlo-web-api-'));

// Artifacts of every kind the page is tested on.
const ARTIFACTS = [
  join(JAX, 'attention.1_17_0.mlir.bc'),
  join(JAX, 'cond_switch.0_9_0.mlir.bc'),
  join(JAX, 'quantized.1_10_0.mlir.bc'),
  join(JAX_MESH, 'shard_map_psum.jax_export.mlir.bc'),
  join(FIXTURES, 'mlp_sharded.mlir.bc'),
  join(SUITE, 'stablehlo_legalize_to_vhlo.1_20_0.mlir.bc'),
  join(SUITE, 'stablehlo_legalize_to_vhlo.0_9_0.mlir.bc'),
  join(REAL, 'jax.cpu_ducc_fft.data_2023_03_17.mlir.bc'),
].filter(need);

function thrown(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected an exception');
}

test('inspect gives the header and histogram vhlo-translate inspect --json gives', () => {
  for (const file of ARTIFACTS) {
    const r = api.inspect(readFileSync(file), basename(file));
    const want = cliInspect(file);
    assert.equal(r.producer, want.producer, file);
    assert.equal(r.bytecode_version, want.bytecode_version, file);
    assert.equal(r.target_version, want.target_version, file);
    assert.equal(r.minimum.version, want.minimum_version, file);
    assert.equal(r.ops, want.ops, file);
    assert.deepEqual(r.dialects, want.dialects, file);
    assert.deepEqual(r.vhlo_histogram.map(({ op, count }) => ({ op, count })), want.histogram, file);
    // The StableHLO histogram counts the ops of the program as printed.
    const counts = opCounts(cliText(file, { generic: true }));
    assert.deepEqual(new Map(r.histogram.map(({ op, count }) => [op, count])), counts, file);
    assert.equal(r.stablehlo_ops, [...counts.values()].reduce((a, b) => a + b, 0));
    // The releases that read it: its version and later, as `inspect --readable-by` says.
    const first = r.readable_by[0].version;
    assert.equal(first, r.read_at);
    assert.equal(cliInspect(file, first).readable_by.readable, true, `${file} by ${first}`);
    const all = api.releases().map((x) => x.version);
    const before = all[all.indexOf(first) - 1];
    if (before) assert.equal(cliInspect(file, before).readable_by.readable, false, `${file} by ${before}`);
    assert.equal(r.readable_by.at(-1).version, api.currentVersion());
  }
});

test('toText prints what vhlo-translate --deserialize prints, in its four forms', () => {
  for (const file of ARTIFACTS) {
    const bytes = readFileSync(file);
    for (const generic of [false, true]) {
      for (const locations of [false, true]) {
        const got = api.toText(bytes, { generic, locations, name: basename(file) });
        assert.equal(got, cliText(file, { generic, locations }), `${file} generic=${generic} locations=${locations}`);
      }
    }
  }
});

test('text input prints as vhlo-translate prints it, its locations naming the file', () => {
  for (const file of [join(JAX, 'mlp.mlir'), join(JAX, 'attention.generic.mlir'), join(JAX_MESH, 'named_sharding_io.mlir')]) {
    const got = api.toText(readFileSync(file), { locations: true, name: basename(file) });
    assert.equal(got, cliText(file, { locations: true }), file);
    const r = api.inspect(readFileSync(file), basename(file));
    assert.equal(r.kind, 'text');
    assert.equal(r.producer, null);
  }
});

test('retarget writes the bytes vhlo-translate --retarget writes', () => {
  const cases = [
    [join(JAX, 'attention.1_17_0.mlir.bc'), '1.5.0'],
    [join(JAX, 'cond_switch.0_9_0.mlir.bc'), '1.17.0'],
    [join(JAX_MESH, 'shard_map_psum.jax_export.mlir.bc'), 'current'],
  ];
  for (const [file, target] of cases) {
    const got = api.retarget(readFileSync(file), target);
    assert.ok(got instanceof Uint8Array);
    const out = join(tmp, `${basename(file)}.${target}.bc`);
    const r = cli(['--retarget', file, `--target=${target}`, '-o', out]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(Buffer.from(got), readFileSync(out), `${file} -> ${target}`);
    // And it reads back to the same program.
    writeFileSync(join(tmp, 'back.bc'), got);
    assert.equal(cliText(join(tmp, 'back.bc')), cliText(file));
  }
});

test('serialize writes the bytes vhlo-translate --serialize writes', () => {
  for (const [file, target] of [[join(JAX, 'mlp.mlir'), '1.0.0'], [join(JAX, 'attention.mlir'), 'current']]) {
    const got = api.serialize(readFileSync(file, 'utf8'), target, { name: basename(file) });
    const out = join(tmp, `${basename(file)}.${target}.bc`);
    const r = cli(['--serialize', basename(file), `--target=${target}`, '-o', out], { cwd: JAX });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(Buffer.from(got), readFileSync(out), `${file} -> ${target}`);
  }
  // Shardy ops need allowOtherDialects, as the CLI needs --allow-other-dialects.
  const sdy = readFileSync(join(JAX_MESH, 'named_sharding_io.mlir'), 'utf8');
  assert.equal(thrown(() => api.serialize(sdy, 'current', {})).name, 'VhloError');
  assert.ok(api.serialize(sdy, 'current', { allowOtherDialects: true }).length > 0);
});

test('a jax.export file reads as the artifact it holds', () => {
  const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8'));
  for (const [name, want] of Object.entries(manifest.programs)) {
    const exported = readFileSync(join(FIXTURES, `${name}.jax_exported`));
    const r = api.inspect(exported, name);
    assert.equal(r.kind, 'jax_export');
    assert.equal(r.jax_export.function_name, want.function_name);
    assert.deepEqual(r.jax_export.in_avals, want.in_avals);
    assert.deepEqual(r.jax_export.out_avals, want.out_avals);
    assert.equal(r.jax_export.nr_devices, want.nr_devices);
    assert.equal(r.jax_export.module_offset, want.module_offset);
    const artifact = join(FIXTURES, `${name}.mlir.bc`);
    assert.equal(r.producer, cliInspect(artifact).producer);
    assert.equal(api.toText(exported, { generic: true }), cliText(artifact, { generic: true }));
  }
});

test('errors are thrown as VhloError carrying their diagnostics', () => {
  // A truncated artifact: the byte offset vhlo-translate names.
  const file = join(JAX, 'attention.1_17_0.mlir.bc');
  const bytes = readFileSync(file);
  const cut = join(tmp, 'cut.mlir.bc');
  writeFileSync(cut, bytes.subarray(0, 700));
  const e = thrown(() => api.inspect(bytes.subarray(0, 700), 'cut'));
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'VhloError');
  assert.equal(e.kind, 'bytecode');
  assert.equal(e.section, 'header');
  const cliError = cli(['--deserialize', cut]).stderr;
  assert.match(cliError, new RegExp(`byte ${e.offset}:`));
  assert.ok(cliError.includes(e.message), `${cliError} / ${e.message}`);
  assert.deepEqual(e.diagnostics, []);
  // The same from every entry point.
  for (const f of [() => api.toText(bytes.subarray(0, 700), {}), () => api.retarget(bytes.subarray(0, 700), '1.0.0'), () => new api.Artifact(bytes.subarray(0, 700), 'cut')]) {
    const x = thrown(f);
    assert.equal(x.kind, 'bytecode');
    assert.equal(x.offset, e.offset);
  }

  // A target too old for the program: each blocker with op, location, needed version and rule.
  const tan = 'func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %x : tensor<f32>\n  return %0 : tensor<f32>\n}\n';
  const c = thrown(() => api.serialize(tan, '1.0.0', { name: 'tan.mlir' }));
  assert.equal(c.kind, 'convert');
  assert.equal(c.diagnostics.length, 1);
  assert.match(c.diagnostics[0].op, /tan/);
  assert.equal(c.diagnostics[0].needs, '1.4.0');
  assert.match(c.diagnostics[0].location, /tan\.mlir/);
  assert.ok(c.diagnostics[0].rule.length > 0);
  const artifact = api.serialize(tan, '1.4.0', {});
  const r = thrown(() => api.retarget(artifact, '1.0.0'));
  assert.equal(r.kind, 'convert');
  assert.equal(r.diagnostics[0].needs, '1.4.0');

  // Versions, text, empty input, an artifact from the future.
  assert.equal(thrown(() => api.retarget(artifact, '9.0.0')).kind, 'version');
  assert.equal(thrown(() => api.retarget(artifact, 'one')).kind, 'version');
  const p = thrown(() => api.inspect(Buffer.from('func.func @f() {\n  %0 = stablehlo.nope\n}\n'), 'bad.mlir'));
  assert.equal(p.kind, 'parse');
  assert.equal(p.line, 2);
  assert.ok(p.column > 0);
  assert.match(p.message, /^bad\.mlir:2:/);
  assert.equal(thrown(() => api.inspect(new Uint8Array(0))).kind, 'input');
  if (need(join(SUITE, 'invalid_vhlo_future.mlir.bc'))) {
    const f = thrown(() => api.inspect(readFileSync(join(SUITE, 'invalid_vhlo_future.mlir.bc')), 'future'));
    // Read as libStablehlo reads it: refused at the op this reader lacks, naming the newer producer.
    assert.equal(f.kind, 'bytecode');
    assert.match(f.message, /vhlo\.constant_v99.*newer than this reader/);
    assert.ok(cli(['--deserialize', join(SUITE, 'invalid_vhlo_future.mlir.bc')]).stderr.includes(f.message));
  }
  // The module is still usable after all of these.
  assert.equal(api.inspect(bytes, 'ok').producer, 'StableHLO_v1.17.0');
  assert.equal(api.lastPanic(), undefined);
});

test('an Artifact answers every question from one read', () => {
  const file = join(JAX_MESH, 'named_sharding_io.jax_export.mlir.bc');
  const a = new api.Artifact(readFileSync(file), 'x');
  const s = a.summary();
  assert.equal(s.minimum, undefined);
  assert.equal(a.minimum().version, cliInspect(file).minimum_version);
  assert.equal(a.text({ locations: true }), cliText(file, { locations: true }));
  assert.equal(s.meshes.length, 1);
  assert.deepEqual(s.meshes[0].axes, [['x', 4], ['y', 2]]);
  assert.equal(thrown(() => a.retarget('0.1.0')).kind, 'version');
  a.free();
  // Options may be left out: pretty text without locations, no other dialects.
  assert.equal(api.toText(readFileSync(file)), cliText(file));
  assert.ok(api.serialize(readFileSync(join(JAX, 'mlp.mlir'), 'utf8'), 'current').length > 0);
});
