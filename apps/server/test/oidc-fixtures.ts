import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { generateKeyPairSync, sign, type JsonWebKey } from 'node:crypto';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/*
 * A real OpenID provider (oidc-provider) on a loopback port for the sign-in tests. Its login step signs in
 * the account the test names (`nextAccount`) without a form; consent is granted to its one client. What a
 * test cannot get from a well-behaved provider, an ID token meant for another client or already expired, it
 * asks for with `tamperIdToken`: the provider's token answer then carries an ID token with those claims,
 * signed again with the provider's own key (so only the claims are wrong, never the signature).
 */

export interface OidcTestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface OidcTestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  addAccount(account: OidcTestAccount): void;
  /** The account the next login at the provider signs in as. */
  nextAccount: string | undefined;
  /** Claims to overwrite in the next ID tokens the provider issues (undefined: none). */
  tamperIdToken: Record<string, unknown> | undefined;
  close(): Promise<void>;
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export async function startOidcProvider(options: { redirectUri: string }): Promise<OidcTestProvider> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...(privateKey.export({ format: 'jwk' }) as JsonWebKey), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, OidcTestAccount>();

  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (!address || typeof address === 'string') throw new Error('the provider has no port');
  const issuer = `http://127.0.0.1:${address.port}`;

  const fixture: OidcTestProvider = {
    issuer,
    clientId: 'quire-test-client',
    clientSecret: `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`,
    addAccount: (account) => accounts.set(account.sub, account),
    nextAccount: undefined,
    tamperIdToken: undefined,
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };

  const configuration: Configuration = {
    clients: [{
      client_id: fixture.clientId,
      client_secret: fixture.clientSecret,
      redirect_uris: [options.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    jwks: { keys: [signingKey as never] },
    cookies: { keys: ['oidc-test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    // The one client is first-party: it is granted the scopes it asks for without a consent screen.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    async findAccount(_ctx: KoaContextWithOIDC, sub: string) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ ...account }) };
    },
  };
  const provider = new Provider(issuer, configuration);

  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path !== '/token' || !fixture.tamperIdToken || typeof body?.id_token !== 'string') return;
    const [header, payload] = body.id_token.split('.');
    const claims = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')), ...fixture.tamperIdToken };
    const signingInput = `${header}.${base64url(claims)}`;
    const signature = sign('RSA-SHA256', Buffer.from(signingInput), privateKey).toString('base64url');
    ctx.body = { ...body, id_token: `${signingInput}.${signature}` };
  });

  const callback = provider.callback();
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/interaction/')) {
      callback(req, res);
      return;
    }
    // The login step: the account the test chose, as if the person had typed its password.
    void (async () => {
      try {
        const accountId = fixture.nextAccount;
        if (!accountId) throw new Error('the test named no account to sign in as');
        await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
    })();
  });
  return fixture;
}
