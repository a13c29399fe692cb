import { unwrap, type QuireClient } from '@quire/client';
import type { Collection, Space } from '@quire/api-types';
import { expect } from 'vitest';
import { newId } from '../src/ids.js';
import type { RoleOrGuest } from '../src/policies/roles.js';
import { addMember } from '../src/services/admin-service.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';
import { useForSuite } from './suite-resource.js';

/** An organization made for one test, with its admin (the bootstrap owner) and a client acting as them. */
export interface TestOrg {
  organizationId: string;
  userId: string;
  token: string;
  client: QuireClient;
}

/** A member added to a test organization, with a client acting as them. */
export interface TestMember {
  userId: string;
  token: string;
  client: QuireClient;
}

/** A new organization on `server` whose owner is a new user; `title` is the organization's title. */
export async function newOrg(server: TestServer, title = 'Test organization'): Promise<TestOrg> {
  const owner = await server.bootstrap(title);
  return { ...owner, client: server.client(owner.token) };
}

/** Adds a new user (email `<role>-<random>@example.com`) to the organization with `role` (null: guest). */
export async function newMember(server: TestServer, org: { organizationId: string }, role: RoleOrGuest): Promise<TestMember> {
  const added = await server.addMember(org.organizationId, `${role ?? 'guest'}-${newId(8).toLowerCase()}@example.com`, role);
  return { userId: added.userId, token: added.token, client: server.client(added.token) };
}

/** A person of an organization made by `organizationWithPeople`. */
export interface OrgPerson {
  userId: string;
  token: string;
  email: string;
  client: QuireClient;
}

/**
 * A new organization with its admin plus one member per entry of `roles` (keyed by a name the test picks;
 * email `<key>-<random>@example.com`). `names` gives some of them a display name; `spacingMs` waits that
 * long before adding each member, so that they join at different times.
 */
export async function organizationWithPeople(
  server: TestServer,
  title: string,
  roles: Record<string, RoleOrGuest> = {},
  options: { names?: Record<string, string>; spacingMs?: number } = {},
): Promise<{ organizationId: string; admin: OrgPerson; people: Record<string, OrgPerson> }> {
  const owner = await server.bootstrap(title);
  const ownerEmail = (await unwrap(server.client(owner.token).GET('/user'))).email!;
  const people: Record<string, OrgPerson> = {};
  for (const [key, role] of Object.entries(roles)) {
    if (options.spacingMs) await new Promise((resolve) => setTimeout(resolve, options.spacingMs));
    const email = `${key}-${newId(6).toLowerCase()}@example.com`;
    const displayName = options.names?.[key];
    const issued = await addMember(server.running.services, { organizationId: owner.organizationId, email, role, ...(displayName ? { displayName } : {}) });
    people[key] = { userId: issued.userId, token: issued.token, email, client: server.client(issued.token) };
  }
  const admin: OrgPerson = { userId: owner.userId, token: owner.token, email: ownerEmail, client: server.client(owner.token) };
  return { organizationId: owner.organizationId, admin, people };
}

/** Creates a space in the organization as its admin (createSpace), failing the test unless it succeeds. */
export async function createSpace(org: { organizationId: string; client: QuireClient }, body: { title?: string; parent?: string; emoji?: string } = {}): Promise<Space> {
  return unwrap(org.client.POST('/orgs/{organizationId}/spaces', { params: { path: { organizationId: org.organizationId } }, body }));
}

/** Creates a collection in the organization as its admin (createCollection), failing the test unless it succeeds. */
export async function createCollection(org: { organizationId: string; client: QuireClient }, body: { title?: string; parent?: string } = {}): Promise<Collection> {
  return unwrap(org.client.POST('/orgs/{organizationId}/collections', { params: { path: { organizationId: org.organizationId } }, body }));
}

/**
 * Asserts that an API call failed with `status` and the error body `{ error: { code, message } }` whose code
 * is that status; `message` is then compared exactly (a string) or matched (a RegExp).
 */
export function expectError(result: { response: Response; error?: unknown }, status: number, message?: string | RegExp): void {
  expect(result.response.status, JSON.stringify(result.error)).toBe(status);
  const body = result.error as { error: { code: number; message: string } };
  expect(body.error.code).toBe(status);
  if (typeof message === 'string') expect(body.error.message).toBe(message);
  else if (message) expect(body.error.message).toMatch(message);
}

/** A test server for the enclosing suite, started before its tests and closed after them (see `useForSuite`). */
export function useTestServer(options: TestServerOptions): TestServer {
  return useForSuite('test server', () => startTestServer(options), (server) => server.close());
}

/** What `/healthz` answered while some work ran: how many answers, their p95 and slowest, in milliseconds. */
export interface HealthzWhile<T> {
  result: T;
  answers: number;
  p95: number;
  max: number;
}

/**
 * Asks `/healthz` every 10 ms until `work` settles, and answers the latencies seen meanwhile: the measure of
 * "one request never stalls the others" while heavy work (a large write, a PDF) runs in the same server.
 */
export async function healthzWhile<T>(serverUrl: string, work: Promise<T>): Promise<HealthzWhile<T>> {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  const latencies: number[] = [];
  while (!done) {
    const sent = performance.now();
    expect((await fetch(`${serverUrl}/healthz`)).status).toBe(200);
    latencies.push(performance.now() - sent);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const result = await settled;
  latencies.sort((a, b) => a - b);
  const p95 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.95))] ?? 0;
  return { result, answers: latencies.length, p95, max: latencies[latencies.length - 1] ?? 0 };
}
