#!/usr/bin/env node
// The `quire` command line (only `login` so far): `npm run -s quire -- login --url <Quire URL> --provider <samlProviderId>`.
// Signs in through an organization's SAML single sign-on in the browser and prints an API token as JSON
// ({"token","organization","user","expiresAt"}), handed over as `gh auth login` does: this process listens
// on a loopback port, the browser comes back to it with a one-time code and the same random `state`, and
// the code is exchanged at POST /v1/auth/cli/token. Knows only the public contract, like every other client.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const TIMEOUT_MS = 5 * 60 * 1000;

function fail(message) {
  process.stderr.write(`quire: ${message}\n`);
  process.exit(1);
}

/** Best effort: where no browser can be opened, the printed address is enough. */
function openBrowser(url) {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    spawn(command, [url], { stdio: 'ignore', detached: true }).on('error', () => {}).unref();
  } catch {
    // no browser opener on this machine
  }
}

async function login({ url, provider, browser }) {
  if (!url || !provider) fail('login needs --url <Quire URL> and --provider <samlProviderId>');
  const base = url.replace(/\/+$/, '');
  const state = randomBytes(16).toString('base64url');
  let redirect;
  const code = await new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const received = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (received.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      // A callback without our state was not started by this process.
      if (received.searchParams.get('state') !== state || !received.searchParams.get('code')) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('This sign-in was not started here.');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('Signed in: you can close this tab and go back to the terminal.');
      clearTimeout(timer);
      server.close();
      resolve(received.searchParams.get('code'));
    });
    const timer = setTimeout(() => {
      server.close();
      reject(new Error('no sign-in within 5 minutes'));
    }, TIMEOUT_MS);
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      redirect = `http://127.0.0.1:${server.address().port}/callback`;
      const start = `${base}/auth/cli/start?${new URLSearchParams({ redirect, state, provider })}`;
      process.stderr.write(`Open this address to sign in:\n${start}\n`);
      if (browser) openBrowser(start);
    });
  }).catch((error) => fail(error.message));
  const response = await fetch(`${base}/v1/auth/cli/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, redirectURI: redirect }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) fail(`the sign-in code was refused (${response.status}): ${body?.error?.message ?? 'no reason given'}`);
  process.stdout.write(`${JSON.stringify(body)}\n`);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { url: { type: 'string' }, provider: { type: 'string' }, 'no-browser': { type: 'boolean' } },
});
if (positionals[0] !== 'login') fail('usage: quire login --url <Quire URL> --provider <samlProviderId> [--no-browser]');
await login({ url: values.url, provider: values.provider, browser: !values['no-browser'] });
