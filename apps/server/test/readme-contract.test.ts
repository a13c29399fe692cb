import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDiskBlobStorage } from '../src/storage/blob-storage.js';
import { launchChromium, seriousViolations, watchedPage } from './browser-support.js';
import { freePort, runCommand, type Finished } from './built.js';
import { createTestDatabaseUrl } from './dialects.js';
import { WEB_ARTIFACTS } from './web-support.js';

/**
 * The README's contract: every command of its "Quick start", "Your team in the browser", "Administration" and "Publish and read a site"
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

  // One Chromium for the file, launched by the first test that needs it.
  let browser: Browser | undefined;
  const chromiumBrowser = async () => (browser ??= await launchChromium());

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
    await browser?.close();
    await stopServer();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the quick start\'s commands as written: the admin it makes gets a password, and the token it makes calls the API, each call answering JSON', async () => {
    const [, setup, usage] = shellBlocks(section(readme, 'Quick start'));
    expect(usage, 'the quick start shows how to call the API').toBeDefined();
    const lines = `${setup}\n${usage}`.split('\n').filter((line) => line.trim());
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
      } else if (/^printf '%s\\n' '[^']+' \| npm run -s admin -- set-password --email \S+$/.test(line)) {
        // The admin's password, read from standard input: the command prints their id.
        expect(JSON.parse(output), line).toHaveProperty('userId');
      } else if (/^curl /.test(line)) {
        const answer = JSON.parse(output) as Record<string, unknown>;
        expect(answer, `${line} answered ${output}`).not.toHaveProperty('error');
        // The calls of the quick start act as the admin it made: `/user` is them, `/orgs` lists their organization.
        const email = setup!.match(/--email (\S+)/)?.[1];
        const org = setup!.match(/--org "([^"]+)"/)?.[1];
        if (line.endsWith('/v1/user')) expect(answer).toMatchObject({ email });
        if (line.endsWith('/v1/orgs')) expect((answer.items as Array<{ title: string }>).map((item) => item.title)).toContain(org);
      } else {
        throw new Error(`the quick start has a line this test does not know how to check: ${line}`);
      }
    }
  }, 120_000);

  /** A page of the shared browser that records console errors, except the 401 the app expects before sign-in. */
  async function readmePage(): Promise<{ page: Page; errors: string[] }> {
    const context = await (await chromiumBrowser()).newContext({ viewport: { width: 1280, height: 860 } });
    const watched = await watchedPage(context, [base]);
    watched.page.setDefaultTimeout(30_000);
    const errors: string[] = [];
    watched.page.on('console', (message) => {
      if (message.type() !== 'error') return;
      if (message.location().url.endsWith('/v1/auth/session') && message.text().includes('status of 401')) return;
      // The reader's pages name no icon, so Chromium asks for /favicon.ico there.
      if (new URL(message.location().url).pathname === '/favicon.ico') return;
      errors.push(`${watched.page.url()}: ${message.text()}`);
    });
    watched.page.on('pageerror', (error) => errors.push(`${watched.page.url()}: uncaught ${error.message}`));
    // Of what watchedPage records, the requests it refused (outside this server); its console lines are judged above.
    const refused = () => watched.errors.filter((line) => line.startsWith('request outside'));
    return { page: watched.page, get errors() { return [...refused(), ...errors]; } };
  }

  async function shoot(page: Page, name: string): Promise<void> {
    mkdirSync(WEB_ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(WEB_ARTIFACTS, `${name}.png`), fullPage: true });
  }

  async function expectAccessible(page: Page, screen: string): Promise<void> {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      found.push(...(await seriousViolations(page)).map((line) => `${screen} (${colorScheme}): ${line}`));
    }
    await page.emulateMedia({ colorScheme: null });
    expect(found).toEqual([]);
  }

  /**
   * The quick start's steps in the browser, each one a sentence of the README matched whole: the names of
   * controls, titles and typed text are read from it, and a step this table does not know fails the test,
   * so the README cannot say a step the app does not do.
   */
  const browserSteps: Array<{ pattern: RegExp; run: (page: Page, values: string[]) => Promise<void> }> = [
    {
      pattern: /^Open (http:\/\/localhost:8080) and sign in with the email `([^`]+)` and the password `([^`]+)`\.$/,
      run: async (page, [address, email, password]) => {
        await page.goto(onOurPort(address!));
        await page.getByLabel('Email').fill(email!);
        await page.getByLabel('Password').fill(password!);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { name: 'Your organizations' }).waitFor();
      },
    },
    {
      pattern: /^Open "([^"]+)", then "([^"]+)": give it the title `([^`]+)` and press "([^"]+)"\. It opens on its "([^"]+)" page\.$/,
      run: async (page, [organization, disclosure, title, create, first]) => {
        await page.getByRole('link', { name: organization, exact: true }).first().click();
        await page.getByRole('heading', { name: organization, exact: true }).waitFor();
        // By keyboard alone: open the disclosure, Tab to the title, type it, submit with Enter.
        await page.locator('summary', { hasText: disclosure! }).focus();
        await page.keyboard.press('Enter');
        await page.keyboard.press('Tab');
        await page.keyboard.type(title!);
        expect(await page.getByLabel('Title of the new space').inputValue()).toBe(title);
        await expectAccessible(page, 'create a space');
        await shoot(page, 'quick-01-create-space');
        expect(await page.getByRole('button', { name: create, exact: true }).isEnabled()).toBe(true);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: first, exact: true }).waitFor();
        await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: first, exact: true }).waitFor();
      },
    },
    {
      pattern: /^Press "([^"]+)": a change request opens with the page in its editor\. Type `([^`]+)` at the end; it is saved as you type\.$/,
      run: async (page, [edit, typed]) => {
        await page.getByRole('button', { name: edit, exact: true }).click();
        const editor = page.getByRole('textbox', { name: 'Page content' });
        await editor.click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type(`\n\n${typed}`);
        await page.getByText('All changes saved').waitFor();
      },
    },
    {
      pattern: /^Press "([^"]+)": as the organization's only admin, with no merge rules set, you may merge your own change request \(with a team, "Request review" first: below\)\.$/,
      run: async (page, [merge]) => {
        await page.getByRole('button', { name: merge, exact: true }).click();
        await page.getByText('This change request is merged.').waitFor();
      },
    },
    {
      pattern: /^Back in "([^"]+)", press "([^"]+)", then "([^"]+)"\.$/,
      run: async (page, [space, createSite, publish]) => {
        await page.getByRole('link', { name: space, exact: true }).click();
        await page.getByRole('heading', { name: space, exact: true }).waitFor();
        await expectAccessible(page, 'space with its site button');
        await shoot(page, 'quick-02-space');
        await page.getByRole('button', { name: createSite, exact: true }).click();
        await page.getByRole('button', { name: publish, exact: true }).click();
        await page.getByText('The site is published.').waitFor();
      },
    },
    {
      pattern: /^Open the address the site shows: the reader shows the "([^"]+)" page with `([^`]+)`, as visitors see it\.$/,
      run: async (page, [title, typed]) => {
        const address = await page.getByRole('definition').getByRole('link').getAttribute('href');
        expect(address).toMatch(new RegExp(`^${base}/sites/[A-Za-z0-9_-]+$`));
        await page.goto(address!);
        await page.getByRole('heading', { name: title, exact: true }).first().waitFor();
        await page.getByText(typed!, { exact: true }).waitFor();
        await shoot(page, 'quick-03-reader');
      },
    },
  ];

  it('walks the quick start\'s steps in the browser as written: sign in, create a space, edit, merge, publish, read', async () => {
    const steps = section(readme, 'Quick start').split('\n').filter((line) => /^\d+\. /.test(line)).map((line) => line.replace(/^\d+\. /, ''));
    expect(steps.length, 'the quick start has steps in the browser').toBeGreaterThan(0);
    // The admin of the quick start, with the password it set (made here as it makes them when this test runs alone).
    const [, setup] = shellBlocks(section(readme, 'Quick start'));
    const email = setup!.match(/--email (\S+)/)?.[1];
    if ((await sh(`npm run -s admin -- create-token --email ${email} --json`)).code !== 0) {
      const setupLines = setup!.split('\n').filter((line) => line.trim());
      const made = await sh(['set -e', ...setupLines].join('\n'));
      expect(made.code, made.stderr).toBe(0);
    }
    const { page, errors } = await readmePage();
    for (const step of steps) {
      const known = browserSteps.filter((candidate) => candidate.pattern.test(step));
      expect(known, `the quick start has a step this test does not know how to take: ${step}`).toHaveLength(1);
      await known[0]!.run(page, step.match(known[0]!.pattern)!.slice(1));
    }
    expect(errors).toEqual([]);
  }, 240_000);

  it('runs "Your team in the browser" as written: the invited teammate joins through the printed address', async () => {
    const [block] = shellBlocks(section(readme, 'Your team in the browser'));
    const lines = block!.split('\n').filter((line) => line.trim());
    const [, setup] = shellBlocks(section(readme, 'Quick start'));
    const email = setup!.match(/--email (\S+)/)?.[1];
    const invitee = block!.match(/"emails":\["([^"]+)"\]/)?.[1];
    expect([email, invitee].every(Boolean), 'the sections name the admin and the invited teammate').toBe(true);
    // It continues the quick start, whose terminal has TOKEN set for that admin (made here as the quick start makes
    // them when this test runs alone).
    let made = await sh(`npm run -s admin -- create-token --email ${email} --json`);
    if (made.code !== 0) made = await sh(`npm run -s admin -- bootstrap --org "Acme Docs" --email ${email} --json`);
    expect(made.code, made.stderr).toBe(0);
    const token = (JSON.parse(made.stdout) as { token: string }).token;
    const result = await sh(['set -e', `TOKEN='${token}'`, ...lines.map(onOurPort)].join('\n'));
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const joinUrl = result.stdout.trim();
    expect(joinUrl).toMatch(new RegExp(`^${base}/join/[A-Za-z0-9_-]+$`));

    // The teammate, in a browser of their own, opens the printed address and joins.
    const { page: teammate, errors } = await readmePage();
    await teammate.goto(joinUrl);
    await teammate.getByLabel('Your name').fill('Grace');
    await teammate.getByLabel('Password').fill('another long passphrase 2026');
    await teammate.getByRole('button', { name: 'Accept invitation' }).click();
    // The organization's own screen (exact: the join screen's heading also names the organization).
    await teammate.getByRole('heading', { name: 'Acme Docs', exact: true }).waitFor({ timeout: 30_000 });
    const session = await teammate.evaluate(async () => (await fetch('/v1/auth/session')).json()) as { user?: { email: string } };
    expect(session, JSON.stringify(session)).toMatchObject({ user: { email: invitee } });
    expect(errors).toEqual([]);
  }, 180_000);

  it('runs every administration command as written and each prints one JSON object with exactly the fields promised', async () => {
    const rows = adminRows(section(readme, 'Administration'));
    const commands = rows.map((row) => row.command.split(' -- ')[1]!.split(' ')[0]);
    expect(commands, 'the administration table lists the commands').toEqual(expect.arrayContaining(['bootstrap', 'add-member', 'create-token', 'set-password', 'verify-integration', 'copy-database']));
    // What `set-password` reads from standard input, as the README's example pipes it in.
    const readmePassword = 'readme password, long enough 2026';

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
            // create-token and set-password are for an existing user; the others make a new one.
            if (name === 'create-token' || name === 'set-password') return emails[0]!;
            const email = `readme-${++serial}@example.com`;
            emails.push(email);
            return email;
          }
          case 'organizationId': return organizationId!;
          case 'integrationName': return integrationName!;
          // A new, empty schema of the run's PostgreSQL, quoted for the shell (its `?` is a glob character).
          case 'postgres url': return `'${createTestDatabaseUrl('postgres').url}'`;
          default: throw new Error(`the README's \`${row.command}\` has a placeholder <${placeholder}> this test cannot fill`);
        }
      };
      // copy-database copies this SQLite install into PostgreSQL: run where the suite has one (CI), as the
      // other PostgreSQL contracts are.
      if (name === 'copy-database' && !process.env.TEST_DATABASE_URL) continue;
      for (const command of expandTemplate(row.command, fill)) {
        const result = await sh(name === 'set-password' ? `printf '%s\\n' '${readmePassword}' | ${command}` : command);
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
        if (name === 'copy-database') {
          // Every table of the schema, and the rows the commands above made (at least a user and an organization).
          expect(printed.tables, command).toBeGreaterThan(40);
          expect(printed.rows, command).toBeGreaterThanOrEqual(2);
        }
        if (name === 'verify-integration') {
          expect(printed).toEqual({ name: integrationName, verified: !command.includes('--revoke') });
        }
        if (name === 'set-password') {
          // The person signs in with the password read from standard input (and not with another).
          const signIn = (password: string) => fetch(`${base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: emails[0], password }) });
          const signedIn = await signIn(readmePassword);
          expect(signedIn.status, command).toBe(200);
          expect(((await signedIn.json()) as { user: { id: string } }).user.id, command).toBe(printed.userId);
          expect((await signIn(`${readmePassword}!`)).status, command).toBe(401);
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

/**
 * "Running beyond one machine", as written, on one PostgreSQL (a schema of this run in place of the README's
 * database address, a free port in place of 8080): the API with QUIRE_PROCESSES=2 and without jobs, a job
 * process of its own, health and readiness, the copy of a SQLite install's database, and the move of files
 * from disk into the database.
 */
(process.env.TEST_DATABASE_URL ? describe : describe.skip)('README contract: Running beyond one machine', () => {
  it('runs its commands as written: two API processes on one port, a job process, health, readiness and the file move', async () => {
    const blocks = shellBlocks(section(readme, 'Running beyond one machine'));
    expect(blocks, 'the section shows the API, the job process, health, the database copy and the file move').toHaveLength(5);
    const [apiBlock, workerBlock, healthBlock, copyBlock, moveBlock] = blocks as [string, string, string, string, string];
    const databaseUrl = createTestDatabaseUrl('postgres').url;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'quire-readme-beyond-'));
    // Logging at info, as a terminal without NODE_ENV=test does: the test reads the processes' lines.
    const env = { ...process.env, PORT: String(port), QUIRE_BLOB_DIR: join(dataDir, 'blobs'), LOG_LEVEL: 'info' };
    const ourDatabase = (block: string) => {
      expect(block, 'each machine is pointed at the database first').toMatch(/^export DATABASE_URL=postgres:\/\/\S+$/m);
      return block.replace(/^export DATABASE_URL=\S+$/m, `export DATABASE_URL='${databaseUrl}'`);
    };
    const started: Array<{ child: ChildProcess; output: () => string }> = [];
    const startBlock = (block: string) => {
      const child = spawn('sh', ['-c', ourDatabase(block)], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
      child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
      started.push({ child, output: () => output });
      return started.at(-1)!;
    };
    const waitFor = async (check: () => Promise<boolean> | boolean, what: string, output: () => string) => {
      const deadline = Date.now() + 240_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`${what}: ${output().slice(-4000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      const api = startBlock(apiBlock);
      await waitFor(() => fetch(`${base}/readyz`).then((answer) => answer.status === 200, () => false), 'the API did not start', api.output);
      const listening = () => [...api.output().matchAll(/"msg":"quire process listening"/g)].length;
      await waitFor(() => listening() >= 2, 'two API processes did not listen', api.output);
      expect(api.output()).toContain('"runJobs":false');
      const worker = startBlock(workerBlock);
      await waitFor(() => worker.output().includes('quire worker running'), 'the job process did not start', worker.output);

      const health = await runCommand('sh', ['-c', healthBlock.replaceAll(DEFAULT_BASE, base)], { env, cwd: repoRoot });
      expect(health.code, health.stderr).toBe(0);
      const [healthz, readyz] = health.stdout.replace(/\}\{/g, '}\n{').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(healthz).toEqual({ status: 'ok' });
      expect(readyz).toMatchObject({ status: 'ok' });

      // A single-machine SQLite install (an organization made by the admin command), copied into a new schema.
      const sqliteUrl = `sqlite:${join(dataDir, 'single.db')}`;
      const made = await runCommand('sh', ['-c', `DATABASE_URL='${sqliteUrl}' npm run -s admin -- bootstrap --org Single --email single@example.com --json`], { env, cwd: repoRoot });
      expect(made.code, made.stderr).toBe(0);
      expect(copyBlock, 'the copy names its SQLite source and PostgreSQL target').toMatch(/^DATABASE_URL=sqlite:\S+ .* --to postgres:\/\/\S+ /);
      const copyTarget = createTestDatabaseUrl('postgres').url;
      const copied = await runCommand('sh', ['-c', copyBlock.replace(/^DATABASE_URL=\S+/, `DATABASE_URL='${sqliteUrl}'`).replace(/--to postgres:\/\/\S+/, `--to '${copyTarget}'`)], { env, cwd: repoRoot });
      expect(copied.code, copied.stderr).toBe(0);
      const copy = JSON.parse(copied.stdout) as { tables: number; rows: number };
      expect(Object.keys(copy).sort()).toEqual(['rows', 'tables']);
      expect(copy.rows).toBeGreaterThanOrEqual(3);
      // (test/copy-database.test.ts reads a whole install back through a server on its copy.)

      // A file the disk store of a single-machine install kept, moved into the database by the command.
      const bytes = Buffer.from('a file kept on one machine');
      await new LocalDiskBlobStorage({ dir: join(dataDir, 'blobs') }).put(bytes);
      const moved = await runCommand('sh', ['-c', `${ourDatabase(workerBlock).split('\n')[0]}\n${moveBlock}`], { env, cwd: repoRoot });
      expect(moved.code, moved.stderr).toBe(0);
      expect(JSON.parse(moved.stdout)).toEqual({ from: 'disk', to: 'database', files: 1, moved: 1, alreadyMoved: 0, bytesMoved: bytes.length });

      // Both stop gracefully on SIGTERM (sent to the shell's whole group, as a terminal's Ctrl-C would).
      for (const { child, output } of started) {
        const closed = new Promise((resolve) => child.once('close', resolve));
        process.kill(-child.pid!, 'SIGTERM');
        await closed;
        expect(output()).toMatch(/"msg":"(?:stopped|worker stopped)"/);
        expect(output()).not.toMatch(/"level":50/);
      }
    } finally {
      for (const { child } of started) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 400_000);
});
