import { describe, expect, it } from 'vitest';
import { PathRouter } from './router.js';

describe('PathRouter', () => {
  const router = new PathRouter<string>();
  router.add('GET', '/v1/orgs/{organizationId}', 'getOrg');
  router.add('GET', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', 'latest');
  router.add('GET', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', 'version');
  router.add('DELETE', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', 'deleteVersion');
  router.add('POST', '/v1/orgs', 'createOrg');

  it('matches static segments before parameters and decodes parameters', () => {
    expect(router.lookup('GET', '/v1/orgs/o1/openapi/pets/versions/latest')).toEqual({ kind: 'found', match: { route: 'latest', params: { organizationId: 'o1', specSlug: 'pets' } } });
    expect(router.lookup('GET', '/v1/orgs/o%201/openapi/pets/versions/v2')).toEqual({ kind: 'found', match: { route: 'version', params: { organizationId: 'o 1', specSlug: 'pets', versionId: 'v2' } } });
  });

  it('falls back to the parameter when the static path lacks the method', () => {
    expect(router.lookup('DELETE', '/v1/orgs/o1/openapi/pets/versions/latest')).toMatchObject({ kind: 'found', match: { route: 'deleteVersion', params: { versionId: 'latest' } } });
  });

  it('serves HEAD with GET, answers 405 with the allowed methods, 404 otherwise', () => {
    expect(router.lookup('HEAD', '/v1/orgs/o1')).toMatchObject({ kind: 'found', match: { route: 'getOrg' } });
    expect(router.lookup('PUT', '/v1/orgs/o1')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
    expect(router.lookup('GET', '/v1/orgs')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
    expect(router.lookup('GET', '/v1/orgs/o1/')).toEqual({ kind: 'not-found' });
    expect(router.lookup('GET', '/v1/orgs//openapi')).toEqual({ kind: 'not-found' });
    expect(router.lookup('GET', '/v2/orgs/o1')).toEqual({ kind: 'not-found' });
  });

  it('refuses malformed percent-encoding and conflicting definitions', () => {
    expect(router.lookup('GET', '/v1/orgs/%E0%A4%A')).toEqual({ kind: 'bad-path' });
    expect(() => router.add('GET', '/v1/orgs/{organizationId}', 'again')).toThrow(/defined twice/);
    expect(() => router.add('GET', '/v1/orgs/{orgId}/x', 'renamed')).toThrow(/conflicts/);
  });

  it('gives a rest parameter the remaining segments, sent with slashes or encoded', () => {
    const paths = new PathRouter<string>();
    paths.add('GET', '/v1/spaces/{spaceId}/content/path/{pagePath}', 'byPath', { restParameter: 'pagePath' });
    paths.add('GET', '/v1/spaces/{spaceId}/content/page/{pageId}', 'byId');
    const found = (pagePath: string) => ({ kind: 'found', match: { route: 'byPath', params: { spaceId: 's1', pagePath } } });
    expect(paths.lookup('GET', '/v1/spaces/s1/content/path/guide')).toEqual(found('guide'));
    expect(paths.lookup('GET', '/v1/spaces/s1/content/path/guide/install')).toEqual(found('guide/install'));
    expect(paths.lookup('GET', '/v1/spaces/s1/content/path/guide%2Finstall')).toEqual(found('guide/install'));
    expect(paths.lookup('GET', '/v1/spaces/s1/content/page/p1/extra')).toEqual({ kind: 'not-found' });
    expect(paths.lookup('GET', '/v1/spaces/s1/content/path/guide/')).toEqual({ kind: 'not-found' });
    expect(paths.lookup('GET', '/v1/spaces/s1/content/path/a//b')).toEqual({ kind: 'not-found' });
    expect(paths.lookup('GET', '/v1/spaces/s1/content/path/a/%E0%A4%A')).toEqual({ kind: 'bad-path' });
    expect(() => paths.add('GET', '/v1/spaces/{spaceId}/x/{rest}/y', 'middle', { restParameter: 'rest' })).toThrow(/must end the path/);
    expect(() => paths.add('POST', '/v1/spaces/{spaceId}/content/path/{pagePath}', 'notRest')).toThrow(/conflicts/);
  });
});
