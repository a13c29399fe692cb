import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownToDocument } from '../content/markdown/index.js';
import { LocalDiskBlobStorage, readBlob } from '../storage/blob-storage.js';
import { createUrlSigner } from '../storage/signed-urls.js';
import { makePng } from '../../test/support/pdf-fixtures.js';
import { fileImageLoader, pdfFilename, publishPdf } from './publish.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'quire-publish-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('publishPdf', () => {
  it('renders, stores and answers a signed URL to the PDF; the same content is stored once', async () => {
    const storage = new LocalDiskBlobStorage({ dir });
    const signer = createUrlSigner({ secret: 'publish-test-secret-0123456789abcdef0123', publicUrl: 'https://quire.example' });
    const logo = makePng(8, 8, () => [10, 20, 30]);
    const loaded: string[] = [];
    const input = {
      title: 'Change request #3: Fix typos',
      pages: [{ id: 'p1', title: 'Home', path: 'home', document: markdownToDocument('Hello\n\n![Logo](/files/file-logo)\n\n![Web](https://example.com/x.png)') }],
      images: fileImageLoader((fileId) => {
        loaded.push(fileId);
        return fileId === 'file-logo' ? logo : undefined;
      }),
      createdAt: new Date('2024-02-02T00:00:00Z'),
    };
    const first = await publishPdf(input, { storage, signer, ttlSeconds: 900 });
    expect(loaded).toEqual(['file-logo']);
    const url = new URL(first.url);
    expect(url.origin).toBe('https://quire.example');
    expect(url.pathname).toBe(`/downloads/${first.hash}/Change%20request%20%233%20Fix%20typos.pdf`);
    expect(url.searchParams.has('type')).toBe(false);
    const verified = signer.verify({
      hash: first.hash,
      filename: decodeURIComponent(url.pathname.split('/')[3]!),
      expires: url.searchParams.get('expires'),
      sig: url.searchParams.get('sig'),
    });
    expect(verified).toMatchObject({ ok: true, contentType: 'application/pdf' });
    const bytes = await readBlob(storage, first.hash);
    expect(bytes?.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes?.length).toBe(first.size);
    expect(bytes?.toString('latin1')).toContain('/Subtype /Image');

    const second = await publishPdf(input, { storage, signer });
    expect(second.hash).toBe(first.hash);
  });

  it('names the file after the title', () => {
    expect(pdfFilename('Getting started')).toBe('Getting started.pdf');
    expect(pdfFilename('a/b: "c"?')).toBe('a_b c.pdf');
    expect(pdfFilename('report.PDF')).toBe('report.pdf');
    expect(pdfFilename('   ')).toBe('download.pdf');
  });
});
