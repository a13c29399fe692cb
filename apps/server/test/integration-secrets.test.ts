import { afterEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { bootstrap } from '../src/services/admin-service.js';
import { startLoggedServer } from './built.js';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabaseUrl } from './dialects.js';

const SECRET = 'whsec_never_in_any_log_91c2d7';

describeEachDialect('integration secrets', (dialect) => {
  let database: TestDatabaseUrl | undefined;
  afterEach(async () => {
    await database?.drop();
  });

  it('never appear in an answer or in the server log, at debug level, whether the publish succeeds or is refused', async () => {
    database = createTestDatabaseUrl(dialect);
    const handle = await openDatabase(parseDatabaseUrl(database.url));
    await migrateToLatest(handle);
    const owner = await bootstrap({ db: handle.db, dialect: handle.dialect, logger: createLogger('silent') }, { organizationTitle: 'Secrets', email: 'secrets@example.com' });
    await handle.close();
    const server = await startLoggedServer(database.url);
    const { base } = server;
    try {
      const publish = (body: Record<string, unknown>) => fetch(`${base}/v1/integrations/secret-keeper`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ organization: owner.organizationId, title: 'Keeper', description: 'd', scopes: [], script: 'x', secrets: { KEY: SECRET }, ...body }),
      });
      const answers: string[] = [];
      for (const body of [{}, { title: 'K' }, { secrets: { KEY: SECRET, OTHER: 1 } }, { icon: Buffer.from(SECRET).toString('base64') }, { organization: SECRET }]) {
        const response = await publish(body);
        answers.push(`${response.status} ${await response.text()}`);
      }
      expect(answers.map((answer) => answer.slice(0, 3))).toEqual(['200', '400', '400', '400', '404']);
      answers.push(await (await fetch(`${base}/v1/integrations/secret-keeper`, { headers: { authorization: `Bearer ${owner.token}` } })).text());
      for (const answer of answers) expect(answer).not.toContain(SECRET);
      expect(await server.stop()).toBe(0);
      expect(server.log()).toContain('/v1/integrations/secret-keeper');
      expect(server.log()).not.toContain(SECRET);
    } finally {
      server.dispose();
    }
  }, 90_000);
});
