// Shared by the API and browser tests: where things are, the vhlo-translate CLI (the reference
// every answer is checked against), and the built module.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = resolve(WEB, '..');
export const PKG = join(WEB, 'www', 'pkg');
export const FIXTURES = join(WEB, 'tests', 'fixtures');
export const JAX = join(REPO, 'tests', 'fixtures', 'jax');
export const JAX_MESH = join(REPO, 'tests', 'fixtures', 'jax_mesh');
export const SUITE = process.env.VHLO_COMPAT_SUITE || join(REPO, '..', 'shared', 'compat-suite');
export const REAL = join(REPO, '..', 'shared', 'real-artifacts');
export const RESULTS = join(WEB, 'test-results');

// Under CI the shared data must be there; elsewhere a test that needs it says it skips.
export const REQUIRED = process.env.CI === 'true';

export function need(path) {
  if (existsSync(path)) return true;
  if (REQUIRED) throw new Error(`${path} is missing (CI=true)`);
  return false;
}

export const CLI = process.env.VHLO_TRANSLATE || join(process.env.CARGO_TARGET_DIR || join(REPO, 'target'), 'release', 'vhlo-translate');

if (!existsSync(CLI)) {
  throw new Error(`vhlo-translate not found at ${CLI}: cargo build --release -p vhlo-translate (or set VHLO_TRANSLATE)`);
}
if (!existsSync(join(PKG, 'vhlo_web_bg.wasm'))) {
  throw new Error(`${PKG} is not built: bash web/build.sh`);
}

// Runs vhlo-translate; returns { status, stdout (string or Buffer), stderr }.
export function cli(args, { cwd, binary = false } = {}) {
  const r = spawnSync(CLI, args, { cwd, maxBuffer: 1 << 30, encoding: binary ? 'buffer' : 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: binary ? r.stderr.toString() : r.stderr };
}

// The CLI's text of FILE (`--deserialize`, with the page's two options).
export function cliText(file, { generic = false, locations = false } = {}) {
  const args = ['--deserialize', basename(file)];
  if (generic) args.push('--mlir-print-op-generic');
  if (locations) args.push('--mlir-print-debuginfo');
  // Run beside the file, so that text input's implicit locations name it as the page does.
  const r = cli(args, { cwd: dirname(file) });
  if (r.status !== 0) throw new Error(`vhlo-translate ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// `vhlo-translate inspect FILE --json`.
export function cliInspect(file, readableBy) {
  const args = ['inspect', file, '--json'];
  if (readableBy) args.push('--readable-by', readableBy);
  const r = cli(args);
  if (r.status !== 0) throw new Error(`vhlo-translate ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// The ops of a program as the generic form prints them ("name"(...), one per op), by name.
export function opCounts(genericText) {
  const counts = new Map();
  for (const m of genericText.matchAll(/^\s*(?:%[^=]+= )?"([a-z_][\w$]*\.[\w.$-]+)"\(/gm)) {
    counts.set(m[1], (counts.get(m[1]) || 0) + 1);
  }
  return counts;
}

// The built module, instantiated for node.
export async function loadApi() {
  const api = await import(join(PKG, 'vhlo_web.js'));
  api.initSync({ module: readFileSync(join(PKG, 'vhlo_web_bg.wasm')) });
  return api;
}

export function resultsDir(name) {
  const dir = join(RESULTS, name.replace(/[^\w.-]+/g, '_'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function sh(cmd, args) {
  return execFileSync(cmd, args, { encoding: 'utf8' });
}
