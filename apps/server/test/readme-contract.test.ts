import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCommand, type Finished } from './built.js';

/**
 * The README's contract: every command of its "Quick start", "Administration" and "Publish and read a site"
 * sections runs exactly as written (placeholders filled in, the server on a free port instead of 8080) against a server started by
 * `npm start` on a fresh SQLite database, and prints every field the README says it prints. The commands
 * and the promised fields are read from the README itself, so a command or field added there is checked
 * the day it is written, and one the program does not honour fails here.
 */

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const DEFAULT_BASE = 'http://localhost:8080';

/** The text of a `## title` section, up to the next `## ` heading. */
function section(markdown: string, title: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${title}`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = lines.findIndex((line, index) => index > start && /^## /.test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The bodies of the fenced `sh` blocks of a section. */
function shellBlocks(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
}

/** One row of the Administration table: the command as written and the fields it promises to print. */
interface AdminRow {
  command: string;
  fields: string[];
}

/** Rows `| \`command\` | \`{"a", "b"}\`: ... |` of the Administration table. */
function adminRows(text: string): AdminRow[] {
  const rows: AdminRow[] = [];
  for (const line of text.split('\n')) {
    const cells = line.match(/^\|\s*`(npm run[^`]*)`\s*\|(.*)\|\s*$/);
    if (!cells) continue;
    const command = cells[1]!.replace(/\\\|/g, '|');
    const printed = cells[2]!.match(/`\{([^}]*)\}`/);
    if (!printed) throw new Error(`the README does not say what \`${command}\` prints`);
    const fields = [...printed[1]!.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
    rows.push({ command, fields });
  }
  return rows;
}

/**
 * The concrete command lines a README command template stands for: one per alternative of a `<a|b|c>`
 * placeholder, with every `[optional part]` included in the even ones and left out in the odd ones, so both
 * forms run. `fill` gives the value of every other `<placeholder>` (it throws on one it does not know).
 */
function expandTemplate(template: string, fill: (placeholder: string, variant: number) => string): string[] {
  const choices = template.match(/<([^<>]*\|[^<>]*)>/);
  const alternatives = choices ? choices[1]!.split('|') : [];
  const hasOptional = /\[[^\]]*\]/.test(template);
  const count = Math.max(alternatives.length, hasOptional ? 2 : 1);
  const commands: string[] = [];
  for (let variant = 0; variant < count; variant++) {
    let command = template.replace(/\[([^\]]*)\]/g, (_all, inner: string) => (variant % 2 === 0 ? inner : ''));
    if (choices) command = command.replace(choices[0], alternatives[variant % alternatives.length]!);
    command = command.replace(/<([^<>|]*)>/g, (_all, name: string) => fill(name, variant));
    commands.push(command.replace(/\s+/g, ' ').trim());
  }
  return commands;
}

type ShellResult = Finished;

describe('README contract', () => {
  let dataDir: string;
  let base: string;
  let server: ChildProcess | undefined;
  let serverOutput = '';
  // The environment a reader's shell has: none of the test runner's variables that change the server's mode.
  let env: NodeJS.ProcessEnv;

  const sh = (script: string): Promise<ShellResult> => runCommand('sh', ['-c', script], { env, cwd: repoRoot });
  const onOurPort = (command: string) => command.replaceAll(DEFAULT_BASE, base);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'quire-readme-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    env = { ...process.env, PORT: String(port), DATABASE_URL: `sqlite:${join(dataDir, 'quire.db')}`, QUIRE_BLOB_DIR: join(dataDir, 'blobs') };
    for (const name of ['NODE_ENV', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'TEST', 'LOG_LEVEL']) delete env[name];

    // The quick start's first block installs and starts the server; each part of it is recognised or fails.
    const [startBlock] = shellBlocks(section(readme, 'Quick start'));
    const parts = startBlock!.split('&&').map((part) => part.trim());
    for (const part of parts) {
      // `npm ci` is what made this checkout; running it here would replace node_modules under the test run.
      if (part === 'npm ci') continue;
      if (part !== 'npm start') throw new Error(`the README's start command has a part this test does not know: ${part}`);
      await startServer(part);
    }
    expect(server, 'the quick start starts the server with npm start').toBeDefined();
  }, 300_000);

  /** Runs a README start command (`npm start`, with its variables) and waits until the server is ready. */
  async function startServer(command: string): Promise<void> {
    // Its own process group, so that closing it ends npm, the build check and the server together.
    serverOutput = '';
    const started = spawn('sh', ['-c', command], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    server = started;
    started.stdout!.on('data', (chunk: Buffer) => { serverOutput += chunk.toString(); });
    started.stderr!.on('data', (chunk: Buffer) => { serverOutput += chunk.toString(); });
    // `npm start` first brings the build up to date, which takes minutes on a loaded machine when the build
    // is not current, so this waits longer than other tests' server starts.
    const deadline = Date.now() + 280_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`${command} exited: ${serverOutput.slice(-4000)}`);
      const ready = await fetch(`${base}/readyz`).then((answer) => answer.status === 200, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the server did not start: ${serverOutput.slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function stopServer(): Promise<void> {
    if (server?.pid && server.exitCode === null) {
      const running = server;
      const closed = new Promise((resolve) => running.once('close', resolve));
      process.kill(-running.pid!, 'SIGTERM');
      await closed;
    }
    server = undefined;
  }

  afterAll(async () => {
    await stopServer();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the quick start as written: the token it makes calls the API, and each call answers JSON', async () => {
    const [, usage] = shellBlocks(section(readme, 'Quick start'));
    expect(usage, 'the quick start shows how to call the API').toBeDefined();
    const lines = usage!.split('\n').filter((line) => line.trim());
    // Each line's output is framed, and each variable a line assigns is printed after it, so each is checked alone.
    const marker = (index: number) => `@@readme-line-${index}@@`;
    const script = ['set -e', ...lines.flatMap((line, index) => {
      const assigned = line.match(/^([A-Z_]+)=/)?.[1];
      return [onOurPort(line), ...(assigned ? [`printf '%s' "$${assigned}"`] : []), `printf '\\n%s\\n' '${marker(index)}'`];
    })].join('\n');
    const result = await sh(script);
    expect(result.code, result.stderr).toBe(0);
    let rest = result.stdout;
    for (const [index, line] of lines.entries()) {
      const end = rest.indexOf(`\n${marker(index)}\n`);
      expect(end, `no output framed for: ${line}`).toBeGreaterThanOrEqual(0);
      const output = rest.slice(0, end);
      rest = rest.slice(end + marker(index).length + 2);
      if (/^[A-Z_]+=/.test(line)) {
        // An assignment (TOKEN=$(npm run -s admin -- bootstrap ... --json | node -pe ...)) must yield a token.
        expect(output, line).toMatch(/^qk_[A-Za-z0-9_-]{43}$/);
      } else if (/^curl /.test(line)) {
        const answer = JSON.parse(output) as Record<string, unknown>;
        expect(answer, `${line} answered ${output}`).not.toHaveProperty('error');
        // The calls of the quick start act as the admin it made: `/user` is them, `/orgs` lists their organization.
        const email = usage!.match(/--email (\S+)/)?.[1];
        const org = usage!.match(/--org "([^"]+)"/)?.[1];
        if (line.endsWith('/v1/user')) expect(answer).toMatchObject({ email });
        if (line.endsWith('/v1/orgs')) expect((answer.items as Array<{ title: string }>).map((item) => item.title)).toContain(org);
      } else {
        throw new Error(`the quick start has a line this test does not know how to check: ${line}`);
      }
    }
  }, 120_000);

  it('runs every administration command as written and each prints one JSON object with exactly the fields promised', async () => {
    const rows = adminRows(section(readme, 'Administration'));
    const commands = rows.map((row) => row.command.split(' -- ')[1]!.split(' ')[0]);
    expect(commands, 'the administration table lists the commands').toEqual(expect.arrayContaining(['bootstrap', 'add-member', 'create-token', 'verify-integration']));

    const emails: string[] = [];
    let organizationId: string | undefined;
    let adminToken: string | undefined;
    let integrationName: string | undefined;
    const checked: string[] = [];
    let serial = 0;
    // Rows run in README order; a placeholder takes a value that makes sense at that point (bootstrap first).
    for (const row of rows) {
      const name = row.command.split(' -- ')[1]!.split(' ')[0]!;
      if (name === 'verify-integration' && !integrationName) {
        // A published integration to verify, as its publisher would make one through the API.
        integrationName = 'readme-integration';
        const published = await fetch(`${base}/v1/integrations/${integrationName}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ organization: organizationId, title: 'README', description: 'd', scopes: [], script: 'x', runtime: 'v1' }),
        });
        expect(published.status, await published.clone().text()).toBe(200);
      }
      const fill = (placeholder: string): string => {
        switch (placeholder) {
          case 'title': return 'README Organization';
          case 'display name': return 'README Person';
          case 'email': {
            // create-token is for an existing user; the others make a new one.
            if (name === 'create-token') return emails[0]!;
            const email = `readme-${++serial}@example.com`;
            emails.push(email);
            return email;
          }
          case 'organizationId': return organizationId!;
          case 'integrationName': return integrationName!;
          default: throw new Error(`the README's \`${row.command}\` has a placeholder <${placeholder}> this test cannot fill`);
        }
      };
      for (const command of expandTemplate(row.command, fill)) {
        const result = await sh(command);
        expect(result.code, `${command}: ${result.stderr}`).toBe(0);
        const lines = result.stdout.trim().split('\n');
        expect(lines, `${command} prints exactly one line`).toHaveLength(1);
        const printed = JSON.parse(lines[0]!) as Record<string, unknown>;
        expect(Object.keys(printed).sort(), `${command} prints the fields the README promises`).toEqual([...row.fields].sort());
        for (const field of row.fields) expect(printed[field], `${command}: ${field}`).not.toBe('');
        if (typeof printed.token === 'string') {
          // A printed token works, for the user printed, in the organization printed.
          const user = await fetch(`${base}/v1/user`, { headers: { authorization: `Bearer ${printed.token}` } });
          expect(((await user.json()) as { id: string }).id, command).toBe(printed.userId);
          if (typeof printed.organizationId === 'string') {
            const org = await fetch(`${base}/v1/orgs/${printed.organizationId}`, { headers: { authorization: `Bearer ${printed.token}` } });
            expect(org.status, command).toBe(200);
          }
        }
        if (name === 'bootstrap' && !organizationId) {
          organizationId = printed.organizationId as string;
          adminToken = printed.token as string;
        }
        if (name === 'verify-integration') {
          expect(printed).toEqual({ name: integrationName, verified: !command.includes('--revoke') });
        }
        checked.push(command);
      }
    }
    console.log(`README contract: ${checked.length} administration commands run from ${rows.length} README rows, every promised field printed`);
  }, 240_000);

  it('runs "Publish and read a site" as written: a Git repository imported, published, read, searched and shared by a link', async () => {
    const [start, ...blocks] = shellBlocks(section(readme, 'Publish and read a site'));
    // The walkthrough restarts the quick start's server with local Git remotes allowed, on the same database.
    expect(start, 'the walkthrough starts the server').toMatch(/^(?:[A-Z_]+=\S+ )+npm start$/);
    await stopServer();
    await startServer(start!);
    // It continues the quick start: $TOKEN is an admin's token, made here as the quick start makes it.
    const made = await sh('npm run -s admin -- bootstrap --org "Walkthrough" --email walkthrough@example.com --json');
    expect(made.code, made.stderr).toBe(0);
    const token = (JSON.parse(made.stdout) as { token: string }).token;
    const marker = '@@readme-walkthrough@@';
    const script = ['set -e', `TOKEN='${token}'`, ...blocks.map(onOurPort), `printf '\\n${marker}%s %s %s\\n' "$SITE_URL" "$SHARE_URL" "$DOCS"`].join('\n');
    const result = await sh(script);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const [printed, vars] = result.stdout.split(`\n${marker}`);
    const [siteUrl, shareUrl, docs] = vars!.trim().split(' ');
    try {
      // Publishing answered the site's address on this server, and the script printed it.
      expect(siteUrl).toMatch(new RegExp(`^${base}/sites/[A-Za-z0-9_-]+$`));
      expect(printed).toContain(`${siteUrl}\n`);
      // The search step printed the result linking to the page's section.
      expect(printed).toMatch(/<a href="[^"]*#install">Install<\/a>/);
      // Now a share-link site: closed at its own address, open through the link, which leaves its key in a cookie.
      expect(shareUrl).toMatch(new RegExp(`^${siteUrl}\\?shareKey=`));
      expect((await fetch(siteUrl!)).status).toBe(404);
      const opened = await fetch(shareUrl!, { redirect: 'manual' });
      expect(opened.status).toBe(303);
      const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(new URL(opened.headers.get('location')!, base), { headers: { cookie } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<title>Welcome | Acme Docs</title>');
      expect(html).toContain('Run the zebracorn installer.');
      expect(html).toMatch(/<a href="[^"]*\/configure">Configure<\/a>/);
    } finally {
      if (docs?.startsWith('/')) rmSync(docs, { recursive: true, force: true });
    }
  }, 400_000);
});
