import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderList } from './http/respond.js';
import type { ReaderHandler, ReaderOptions } from './reader-options.js';
import { isReaderPath } from './reader-paths.js';

/*
 * The reader as a server mounts it: its modules (the handler, its routes and pages, the API client, the feed
 * and the render pool: some 70 modules) load when `warm()` is called, once the server listens, or with the
 * first request for a site page if that comes first, which waits for them. Loading them before listening
 * was about a twentieth of the server's time to its first answer, for requests that were not the reader's.
 * The reader is built then with the same options; what it keeps (lookups, pages) starts empty then, so the
 * change feed it subscribes to has nothing to tell it about earlier changes.
 */

type Handler = typeof import('./handler.js');

export function createReaderHandler(options: ReaderOptions): ReaderHandler {
  let loading: Promise<ReaderHandler> | undefined;
  let loaded: ReaderHandler | undefined;
  const load = (): Promise<ReaderHandler> => {
    loading ??= import('./handler.js').then(
      ({ createReaderHandler: create }: Handler) => (loaded = create(options)),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  const handler = ((req: IncomingMessage, res: ServerResponse, firstHeaders?: HeaderList) => {
    if (loaded) return loaded(req, res, firstHeaders);
    load().then((reader) => reader(req, res, firstHeaders), () => {
      // The reader's own error page is among what failed to load.
      if (!res.headersSent) res.writeHead(500, [...(firstHeaders ?? []), 'content-type', 'text/plain; charset=utf-8']);
      res.end('The reader could not be loaded.\n');
    });
  }) as ReaderHandler;
  handler.isReaderPath = isReaderPath;
  handler.warm = async () => (await load()).warm();
  // Only a reader that was built has anything to close (its render threads, its change subscription).
  handler.close = async () => {
    const reader = await loading?.catch(() => undefined);
    await reader?.close();
  };
  return handler;
}
