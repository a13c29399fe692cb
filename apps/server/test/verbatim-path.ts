import { request } from 'node:http';

/*
 * A request whose path reaches the server byte for byte. `fetch` and every WHATWG URL parser resolve `.` and
 * `..` segments, also written `%2e` or `%2E%2e`, before a request leaves, so they cannot show what the server
 * does with such a path; tests of names that become path segments send them with this.
 */
export function sendVerbatimPath(serverUrl: string, method: string, path: string, init: { token?: string; body?: unknown } = {}): Promise<{ status: number; json: { error?: { code: number; message: string } } & Record<string, unknown> }> {
  const { hostname, port } = new URL(serverUrl);
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const outgoing = request({
      hostname, port, method, path,
      headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) });
        } catch {
          reject(new Error(`${method} ${path}: ${response.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`));
        }
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
