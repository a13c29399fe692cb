import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderList } from './http/respond.js';

/** What the server tells an in-process reader to forget: what it keeps of a site, or of the sites showing a space; neither: everything. */
export interface ReaderChange {
  siteId?: string;
  spaceId?: string;
}

/** The server's change feed, as an in-process reader sees it (the server's db/change-notices.ts adapted). */
export interface ReaderChanges {
  subscribe(listener: (change: ReaderChange) => void): () => void;
  /** False while changes may go unheard (the server's listener is reconnecting): the reader then reuses no lookup. */
  live(): boolean;
  /**
   * When other processes may make changes (PostgreSQL): resolves once every change acknowledged before the call
   * has been heard (true), or false when changes may go unheard. An open site's kept lookup is used only after
   * it, so a site unpublished through any process is closed by this one's very next request.
   */
  sync?(): Promise<boolean>;
}

export interface ReaderOptions {
  /** Root of the API (`http://127.0.0.1:8080`), or a function answering it once known (the server's own port). */
  apiUrl: string | (() => string);
  /**
   * Base of the `/sites/...` addresses, the API's QUIRE_PUBLIC_URL. Requests under `/sites/` are looked up at
   * this base; others by their Host (sites with a hostname). Default: the request's own Host.
   */
  publicUrl?: string;
  /**
   * How long the lookup of an open (public, unlisted) site's address is reused; 0 turns it off. Without
   * `changes` that is how long an unpublish can take to show; with them, what the change touched is forgotten
   * as soon as the server hears of it.
   */
  lookupCacheMs?: number;
  /** When the reader runs in the server's process: the server's change feed (see ReaderChanges). */
  changes?: ReaderChanges;
  /** Rendered pages kept (least recently used dropped first). */
  pageCacheEntries?: number;
  /** Fetch for API calls (tests, proxies). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * When the API trusts this reader (the same process, `npm start`): a key sent as `X-Quire-Reader` with the
   * visitor's address as `X-Forwarded-For` on lookups, so the API's rate limit counts each visitor, not the reader.
   */
  forwardVisitorAddress?: { key: string };
}

export interface ReaderHandler {
  /**
   * `firstHeaders`: headers the mounting server puts first on every answer (name, value, ...: its request id),
   * which it has not set itself: the reader writes a cached page's together with the page's own in one
   * `writeHead` (a response with a header already set makes Node merge the page's into it one by one).
   */
  (req: IncomingMessage, res: ServerResponse, firstHeaders?: HeaderList): void;
  /** Whether this request is the reader's (an address under /sites/ or of the reader's assets). */
  isReaderPath(pathname: string): boolean;
  /** Loads what the first page would otherwise load (the Markdown renderer); call it once the server listens. */
  warm(): Promise<void>;
  close(): Promise<void>;
}
