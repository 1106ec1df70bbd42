// The page's worker: vhlo-core (WebAssembly) off the page's thread, so that reading, printing and
// converting a large program never freezes the tab. One file is held open at a time (an Artifact,
// read once); each request names the open it belongs to, and answers carry that id.
import init, { Artifact, currentVersion, lastPanic, releases, serialize } from './pkg/vhlo_web.js';

// A small program run through every step once while the page waits for a file: the engine
// compiles WebAssembly functions on their first call, which would otherwise add to the first
// file's opening.
const WARM_UP = `func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<f32>) {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
  %3 = stablehlo.tanh %2 : tensor<2x4xf32>
  %4 = stablehlo.reduce(%3 init: %c) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<f32>
  %5 = call @f(%4) : (tensor<f32>) -> tensor<f32>
  return %3, %5 : tensor<2x4xf32>, tensor<f32>
}
func.func private @f(%y: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.multiply %y, %y : tensor<f32>
  return %0 : tensor<f32>
}
`;

const ready = init().then(() => {
  const t0 = performance.now();
  const bytes = serialize(WARM_UP, 'current', { name: 'warm-up.mlir' });
  for (let i = 0; i < 3; i++) {
    const a = new Artifact(bytes, 'warm-up');
    a.summary();
    a.text({});
    a.minimum();
    a.retarget('1.0.0');
    a.free();
  }
  return performance.now() - t0;
});
let open = null; // { id, artifact }

// A thrown VhloError carries its fields; copy them into a plain object for postMessage.
function plainError(e) {
  if (e && e.name === 'VhloError') {
    const { kind, message, offset, section, line, column, diagnostics } = e;
    return { kind, message, offset, section, line, column, diagnostics };
  }
  if (e instanceof WebAssembly.RuntimeError) {
    // A panic in the module (a bug): it cannot be used again; the page starts a new worker.
    return { kind: 'panic', message: `internal error: ${lastPanic() ?? e.message}`, diagnostics: [] };
  }
  return { kind: 'internal', message: String(e && e.message ? e.message : e), diagnostics: [] };
}

function post(msg, transfer) {
  self.postMessage(msg, transfer || []);
}

self.onmessage = async (event) => {
  const msg = event.data;
  try {
    await ready;
    switch (msg.type) {
      case 'hello':
        post({ type: 'hello', version: currentVersion(), releases: releases(), warmUpMs: await ready });
        break;
      case 'open': {
        if (open) {
          open.artifact.free();
          open = null;
        }
        const t0 = performance.now();
        const artifact = new Artifact(new Uint8Array(msg.bytes), msg.name);
        open = { id: msg.id, artifact };
        const t1 = performance.now();
        const summary = artifact.summary();
        const t2 = performance.now();
        post({ id: msg.id, type: 'summary', summary, ms: { read: t1 - t0, summary: t2 - t1 } });
        // Then the text the page shows first, then the minimum version (the slowest question on
        // a large program: it converts the program to each candidate release).
        const t3 = performance.now();
        const text = artifact.text(msg.textOptions);
        post({ id: msg.id, type: 'text', text, options: msg.textOptions, ms: performance.now() - t3 });
        const t4 = performance.now();
        const minimum = artifact.minimum();
        post({ id: msg.id, type: 'minimum', minimum, ms: performance.now() - t4 });
        break;
      }
      case 'text': {
        if (!open || open.id !== msg.id) break;
        const t0 = performance.now();
        const text = open.artifact.text(msg.textOptions);
        post({ id: msg.id, type: 'text', text, options: msg.textOptions, ms: performance.now() - t0 });
        break;
      }
      case 'retarget': {
        if (!open || open.id !== msg.id) break;
        const bytes = open.artifact.retarget(msg.version);
        post({ id: msg.id, type: 'retargeted', version: msg.version, bytes: bytes.buffer }, [bytes.buffer]);
        break;
      }
      default:
        throw new Error(`unknown request ${msg.type}`);
    }
  } catch (e) {
    post({ id: msg.id, type: 'error', request: msg.type, version: msg.version, error: plainError(e) });
  }
};
