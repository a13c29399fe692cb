import type { AddressInfo } from 'node:net';
import { unwrap } from '@quire/client';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/ids.js';
import { allJobHandlers } from '../src/jobs/index.js';
import { JobRunner } from '../src/jobs/runner.js';
import { INVITE_MAIL_JOB } from '../src/services/organization-invite-service.js';
import { describeEachDialect } from './dialects.js';
import { newOrg } from './helpers.js';
import { startTestServer, type TestServer } from './server.js';
import { storedJob, storedJobs, storedText } from './storage-facts.js';
import { setJobsDueAt } from './storage-setup.js';

/*
 * Invitations by mail: a Quire with QUIRE_SMTP_URL set sends each invitation through a real SMTP server
 * listening on loopback (smtp-server), from the job the invitation queued; the tests read the messages back
 * with mailparser. The test server runs no job runner of its own, so each test runs the queue when it means to.
 */

const PUBLIC_URL = 'https://docs.example.test';

/** A loopback SMTP server that keeps every message it takes, and can refuse them for a while. */
class MailCatcher {
  readonly messages: ParsedMail[] = [];
  refusing = false;
  readonly #server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: no certificate for nodemailer to check.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, _session, callback) => {
      if (this.refusing) {
        stream.resume();
        stream.on('end', () => callback(Object.assign(new Error('Mailbox unavailable, try later'), { responseCode: 451 })));
        return;
      }
      simpleParser(stream).then((parsed) => {
        this.messages.push(parsed);
        callback();
      }, callback);
    },
  });

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return (this.#server.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

describeEachDialect('invitation mail', (dialect) => {
  const mail = new MailCatcher();
  let server: TestServer;

  beforeAll(async () => {
    const port = await mail.listen();
    server = await startTestServer({
      dialect,
      env: { QUIRE_SMTP_URL: `smtp://127.0.0.1:${port}`, QUIRE_SMTP_FROM: 'Quire <quire@example.test>', QUIRE_PUBLIC_URL: PUBLIC_URL },
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mail.close();
  });

  const runJobs = async () => {
    const runner = new JobRunner({ services: server.running.services, handlers: allJobHandlers() });
    while (await runner.runOnce()) { /* until the queue is empty */ }
  };

  describe('inviteUsersToOrganization', () => {
    it('mails each person their join address from a job, and answers no address', async () => {
      const org = await newOrg(server, 'Mailing Org');
      const address = `mailed-${newId(8).toLowerCase()}@example.com`;
      const sent = await unwrap(org.client.POST('/orgs/{organizationId}/invites', { params: { path: { organizationId: org.organizationId } }, body: { emails: [address], role: 'edit' } }));
      expect(sent.invited).toBe(1);
      expect(sent.invites[0]).not.toHaveProperty('url');
      // Nothing is sent on the request's path: the job does it.
      expect(mail.messages.filter((message) => message.to && JSON.stringify(message.to).includes(address))).toEqual([]);
      const jobs = await storedJobs(server, INVITE_MAIL_JOB, sent.invites[0]!.id);
      expect(jobs).toHaveLength(1);

      await runJobs();
      const received = mail.messages.filter((message) => JSON.stringify(message.to).includes(address));
      expect(received).toHaveLength(1);
      const message = received[0]!;
      expect(message.subject).toBe('Join Mailing Org on Quire');
      expect(message.from?.value[0]?.address).toBe('quire@example.test');
      const joinAddress = /https:\/\/docs\.example\.test\/join\/([A-Za-z0-9_-]{43})/.exec(message.text ?? '');
      expect(joinAddress, message.text).not.toBeNull();
      expect(message.html).toContain(joinAddress![0]);

      // The mailed secret is the invitation's: it previews and accepts, and is stored nowhere in clear.
      const secret = joinAddress![1]!;
      expect(await storedText(server, ['organization_invites', 'jobs'])).not.toContain(secret);
      const preview = await unwrap(server.client().POST('/auth/invites/preview', { body: { invite: secret } }));
      expect(preview).toMatchObject({ organization: { id: org.organizationId }, role: 'edit', email: address });
      const accepted = await unwrap(server.client().POST('/auth/invites/accept', { body: { invite: secret, displayName: 'Mailed Person', password: 'a long passphrase for the mail test' } }));
      expect(accepted.role).toBe('edit');
      expect((await storedJob(server, jobs[0]!.id)).status).toBe('succeeded');
    });

    it('keeps an invitation the mail server refuses and sends it on a later attempt, and sends none revoked meanwhile', async () => {
      const org = await newOrg(server, 'Retrying Org');
      const path = { params: { path: { organizationId: org.organizationId } } };
      const kept = `kept-${newId(8).toLowerCase()}@example.com`;
      const dropped = `dropped-${newId(8).toLowerCase()}@example.com`;
      const sent = await unwrap(org.client.POST('/orgs/{organizationId}/invites', { ...path, body: { emails: [kept, dropped] } }));
      const jobs = [...await storedJobs(server, INVITE_MAIL_JOB, sent.invites[0]!.id), ...await storedJobs(server, INVITE_MAIL_JOB, sent.invites[1]!.id)];

      mail.refusing = true;
      // The runner's own backoff: each refused job waits for its next attempt, so the queue has nothing due after one each.
      const runner = new JobRunner({ services: server.running.services, handlers: allJobHandlers() });
      while (await runner.runOnce()) { /* until nothing is due */ }
      mail.refusing = false;
      for (const job of jobs) {
        const stored = await storedJob(server, job.id);
        expect(stored.status).toBe('queued');
        expect(stored.attempts).toBe(1);
        expect(stored.last_error).toMatch(/mail server did not take the invitation/);
      }
      // The failure left no secret in the job's record.
      expect(await storedText(server, ['jobs'])).not.toMatch(/\/join\//);

      await org.client.DELETE('/orgs/{organizationId}/link-invites/{inviteId}', { params: { path: { organizationId: org.organizationId, inviteId: sent.invites[1]!.id } } });
      await setJobsDueAt(server, jobs.map((job) => job.id), new Date(Date.now() - 1000));
      await runJobs();
      expect(mail.messages.filter((message) => JSON.stringify(message.to).includes(kept))).toHaveLength(1);
      expect(mail.messages.filter((message) => JSON.stringify(message.to).includes(dropped))).toHaveLength(0);
      for (const job of jobs) expect((await storedJob(server, job.id)).status).toBe('succeeded');
    });
  });
});
