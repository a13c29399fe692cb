import { describe, expect, it } from 'vitest';
import { memberReadsSite, siteOpensToVisitor, visitorGrantHolds, type MemberTokenState, type VisitorGrant } from './visitor-policy.js';

/* The member rule of visitor-policy.ts, including what no operation can set up (a disabled membership). */
describe('visitor policy: members reading restricted sites', () => {
  const enabled = { role: 'read' as const, disabled: false };

  it('counts an enabled member with a role, acting in this organization', () => {
    expect(memberReadsSite({}, 'org', enabled)).toBe(true);
    expect(memberReadsSite({ sessionOrganizationId: 'org' }, 'org', enabled)).toBe(true);
    expect(memberReadsSite({ sessionOrganizationId: null }, 'org', enabled)).toBe(true);
    expect(memberReadsSite({ sessionOrganizationId: 'other' }, 'org', enabled)).toBe(false);
    expect(memberReadsSite({}, 'org', { role: 'admin', disabled: true })).toBe(false);
    expect(memberReadsSite({}, 'org', { role: null, disabled: false })).toBe(false);
    expect(memberReadsSite({}, 'org', undefined)).toBe(false);
    expect(memberReadsSite(undefined, 'org', enabled)).toBe(false);
  });

  it('opens any visibility to a member, but never an unpublished site', () => {
    for (const visibility of ['public', 'unlisted', 'share-link', 'visitor-auth'] as const) {
      expect(siteOpensToVisitor({ published: true, visibility, activeShareLink: false, verifiedVisitor: false, member: true })).toBe(true);
      expect(siteOpensToVisitor({ published: false, visibility, activeShareLink: true, verifiedVisitor: true, member: true })).toBe(false);
    }
    expect(siteOpensToVisitor({ published: true, visibility: 'share-link', activeShareLink: false, verifiedVisitor: false, member: false })).toBe(false);
  });

  it('keeps a member\'s grant only while the token is theirs, unexpired, and the membership holds', () => {
    const now = 1_800_000_000;
    const grant: VisitorGrant = { organizationId: 'org', siteId: 'site', visibility: 'share-link', member: { userId: 'u1', tokenId: 't1' }, siteSpaceIds: [], sectionIds: [], expiresAt: now + 60 };
    const site = { organization_id: 'org', published: 1, visibility: 'share-link' };
    const token: MemberTokenState = { user_id: 'u1', organization_id: null, expires_at: null };
    const holds = (member: { token?: MemberTokenState; membership?: typeof enabled | { role: null; disabled: boolean } }) =>
      visitorGrantHolds(grant, { site, member: { token: member.token, membership: member.membership } }, now);
    expect(holds({ token, membership: enabled })).toBe(true);
    expect(holds({ membership: enabled })).toBe(false);
    expect(holds({ token: { ...token, user_id: 'u2' }, membership: enabled })).toBe(false);
    expect(holds({ token: { ...token, expires_at: new Date((now - 1) * 1000).toISOString() }, membership: enabled })).toBe(false);
    expect(holds({ token: { ...token, expires_at: new Date((now + 600) * 1000).toISOString() }, membership: enabled })).toBe(true);
    expect(holds({ token: { ...token, organization_id: 'other' }, membership: enabled })).toBe(false);
    expect(holds({ token, membership: { role: 'read', disabled: true } })).toBe(false);
    expect(holds({ token })).toBe(false);
    // A grant without a member is not opened by a membership state it does not name.
    const { member: _unused, ...anonymous } = grant;
    expect(visitorGrantHolds(anonymous, { site, member: { token, membership: enabled } }, now)).toBe(false);
  });
});
