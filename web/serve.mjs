// Serves web/www on localhost (static files only; the page reads the user's files in the tab).
//
//   node web/serve.mjs [PORT]        # default 8034; 0 picks a free port
//
// Also imported by the browser tests: serve(root, port) resolves to { server, url }.
import { createServer } from 'node:http';
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

export const WWW = fileURLToPath(new URL('./www/', import.meta.url));

export function serve(root = WWW, port = 0, host = '127.0.0.1') {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
      const file = normalize(join(base, path.endsWith('/') ? path + 'index.html' : path));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403).end();
        return;
      }
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] || 'application/octet-stream',
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      ok({ server, url: `http://${host === '127.0.0.1' ? 'localhost' : host}:${p}/` });
    });
  });
}

// Run as a script (node resolves a symlinked script to its real path in import.meta.url).
if (process.argv[1] && realpathSync(resolve(process.argv[1])) === realpathSync(fileURLToPath(import.meta.url))) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8034);
  const { url } = await serve(WWW, port);
  console.log(`serving ${WWW} at ${url} (Ctrl-C stops)`);
}
