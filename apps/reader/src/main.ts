#!/usr/bin/env node
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createReaderHandler } from './handler.js';

/*
 * `npm run reader -- --api <url> [--port N] [--public-url <url>]`: the reader alone, against a remote API, so
 * readers and the API scale apart. `--public-url` is the API's QUIRE_PUBLIC_URL when the `/sites/...` addresses
 * are served by this process under the same host (default: the request's own host).
 */
const usage = 'usage: npm run reader -- --api <url> [--port N] [--host H] [--public-url <url>]';
let values;
try {
  ({ values } = parseArgs({
    options: {
      api: { type: 'string' },
      port: { type: 'string', default: process.env.PORT ?? '8090' },
      host: { type: 'string', default: '0.0.0.0' },
      'public-url': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  process.stderr.write(`quire-reader: ${error instanceof Error ? error.message : String(error)}\n${usage}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
const port = Number(values.port);
if (!values.api || !/^https?:\/\//.test(values.api) || !Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`quire-reader: --api must be an http(s) URL and --port a port number\n${usage}\n`);
  process.exit(2);
}
const reader = createReaderHandler({ apiUrl: values.api, ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}) });
const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.setHeader('Content-Type', 'application/json');
    res.end('{"status":"ok"}');
    return;
  }
  reader(req, res);
});
server.listen(port, values.host, () => {
  const address = server.address();
  const shown = typeof address === 'object' && address ? address.port : port;
  process.stdout.write(`${JSON.stringify({ msg: 'quire reader listening', port: shown, api: values.api })}\n`);
  reader.warm().catch((error: unknown) => process.stderr.write(`quire-reader: could not load the renderer: ${error instanceof Error ? error.message : String(error)}\n`));
});
const stop = () => {
  server.close(() => void reader.close().then(() => process.exit(0)));
  server.closeIdleConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
