import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/*
 * An S3-compatible server on loopback, for the S3 file store's tests and its bench: s3rver 3.7.1 (a dev
 * dependency; its successor @20minutes/s3rver 5 needs Node 24), which speaks S3's HTTP API with signature v4,
 * multipart uploads and CopyObject, keeping objects in a temporary folder. It runs as a process of its own
 * (its command line) so that its memory and CPU are not counted as the store's.
 */

export const LOOPBACK_BUCKET = 'quire-test';
/** s3rver's fixed credentials. */
export const LOOPBACK_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface LoopbackS3Server {
  /** `http://127.0.0.1:<port>`: what AWS_ENDPOINT_URL is set to. */
  endpoint: string;
  stop(): Promise<void>;
}

export async function startLoopbackS3Server(): Promise<LoopbackS3Server> {
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve('s3rver/package.json')), 'bin', 's3rver.js');
  const directory = mkdtempSync(join(tmpdir(), 'quire-s3-'));
  const child = spawn(process.execPath, [cli, '--address', '127.0.0.1', '--port', '0', '--directory', directory, '--silent', '--configure-bucket', LOOPBACK_BUCKET], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const listening = /S3rver listening on [^:]+:(\d+)/.exec(line);
        if (listening) resolve(Number(listening[1]));
      });
    });
    return {
      endpoint: `http://127.0.0.1:${port}`,
      async stop() {
        child.kill('SIGTERM');
        await exited;
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}
