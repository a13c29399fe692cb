import { expect, it } from 'vitest';
import { describeEachDialect, useTestDatabase } from '../../test/dialects.js';
import { splitCredentials } from '../net/url-guard.js';
import { credentialSecrets, openCredentials, SealedCredentialsError, sealCredentials, urlWithCredentials } from './git-credentials.js';

describeEachDialect('git credentials', (dialect) => {
  const database = useTestDatabase(dialect);

  const credentials = { username: 'bot', password: 'S3cret:p@ss/word' };

  it('seals so that nothing of the credentials shows, and opens them again for the same operation only', async () => {
    const sealed = await sealCredentials(database.db, credentials, 'operation-1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    for (const secret of credentialSecrets(credentials)) expect(sealed).not.toContain(secret);
    // A fresh IV each time: the same credentials never seal to the same text.
    expect(await sealCredentials(database.db, credentials, 'operation-1')).not.toBe(sealed);
    expect(await openCredentials(database.db, sealed, 'operation-1')).toEqual(credentials);
    await expect(openCredentials(database.db, sealed, 'operation-2')).rejects.toBeInstanceOf(SealedCredentialsError);
    const [version, iv, data, tag] = sealed.split('.');
    const flipped = `${data!.startsWith('A') ? 'B' : 'A'}${data!.slice(1)}`;
    await expect(openCredentials(database.db, [version, iv, flipped, tag].join('.'), 'operation-1')).rejects.toBeInstanceOf(SealedCredentialsError);
    await expect(openCredentials(database.db, 'v0.x.y.z', 'operation-1')).rejects.toBeInstanceOf(SealedCredentialsError);
    // The key comes from a secret made once and kept in the database.
    const stored = await database.db.selectFrom('server_secrets').select('name').where('name', '=', 'git-credentials').execute();
    expect(stored).toHaveLength(1);
  });

  it('puts credentials back into a URL the way the URL guard takes them off', () => {
    const url = urlWithCredentials('https://git.example.com/o/docs.git', credentials);
    expect(splitCredentials(url)).toEqual({ url: 'https://git.example.com/o/docs.git', ...credentials });
    expect(splitCredentials(urlWithCredentials('https://git.example.com/x.git', { username: 'token-only' }))).toEqual({ url: 'https://git.example.com/x.git', username: 'token-only' });
    expect(urlWithCredentials('https://git.example.com/x.git', undefined)).toBe('https://git.example.com/x.git');
  });
});
