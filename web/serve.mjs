#!/usr/bin/env node
// serve.mjs: the static server for attnviz's site (what `make run` starts).
//   node web/serve.mjs [DIR] [--port N] [--host H]
// Defaults: DIR build/wasm/site, port $PORT or 8000, host 127.0.0.1.
// Sends application/wasm for .wasm (streaming compilation needs it) and the
// COOP/COEP headers that a threaded (SharedArrayBuffer) build would need.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
let dir = 'build/wasm/site';
let port = Number(process.env.PORT || 8000);
let host = '127.0.0.1';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--port') port = Number(args[++i]);
  else if (args[i] === '--host') host = args[++i];
  else dir = args[i];
}
const root = path.resolve(dir);
if (!fs.existsSync(path.join(root, 'index.html'))) {
  console.error(`serve: no index.html in ${root}; build the site first (make run does)`);
  process.exit(1);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`serve: PORT must be a whole number from 0 to 65535`);
  process.exit(2);
}

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.ttf': 'font/ttf', '.otf': 'font/otf',
  '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8', '.data': 'application/octet-stream',
};

const server = http.createServer((req, res) => {
  const headers = {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...headers, Allow: 'GET, HEAD' }).end();
    return;
  }
  let rel;
  try {
    rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  } catch {
    res.writeHead(400, headers).end('bad request');
    return;
  }
  if (rel.endsWith('/')) rel += 'index.html';
  const file = path.join(root, path.normalize(rel));
  if (!file.startsWith(root + path.sep)) {
    res.writeHead(403, headers).end('forbidden');
    return;
  }
  fs.stat(file, (err, st) => {
    if (err || !st.isFile()) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      ...headers,
      'Content-Type': types[path.extname(file).toLowerCase()] || 'application/octet-stream',
      'Content-Length': st.size,
    });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(file).pipe(res);
  });
});

server.on('error', (e) => {
  console.error(`serve: cannot listen on ${host}:${port}: ${e.message}`);
  process.exit(1);
});
server.listen(port, host, () => {
  const a = server.address();
  console.log(`attnviz is at http://${host}:${a.port}/  (Ctrl+C stops it)`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
