// A static file server for dist/ on 127.0.0.1, for the end-to-end tests and the benchmark.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/** Serves `root` (and `extraFiles`, path → HTML) on 127.0.0.1 at a free port; resolves to
 * { url, close }. With `cors`, any origin may fetch the files (as from the Hugging Face Hub). */
export function serve(root, extraFiles = {}, { cors = false } = {}) {
  // Links of long inputs run to hundreds of KB; Node refuses request lines past 16 KB by default.
  const server = createServer({ maxHeaderSize: 4 * 1024 * 1024 }, async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (extraFiles[path]) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(extraFiles[path]);
      return;
    }
    const file = normalize(join(root, path.endsWith('/') ? path + 'index.html' : path));
    if (!file.startsWith(normalize(root))) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        ...(cors ? { 'access-control-allow-origin': '*' } : {}),
      });
      res.end(body);
    } catch {
      res.writeHead(404, cors ? { 'access-control-allow-origin': '*' } : {}).end('not found');
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      // Closing drops the browser's kept-alive connections too (else the process waits on them).
      resolve({ url: `http://127.0.0.1:${port}/`, close: () => { server.close(); server.closeAllConnections(); } });
    });
  });
}
