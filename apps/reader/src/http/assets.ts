import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AssetPaths } from '../site/layout.js';
import { ASSET_PREFIX } from '../reader-paths.js';

export { ASSET_PREFIX };

export interface Asset {
  path: string;
  body: Buffer;
  type: string;
}

export interface ReaderAssets {
  /** The addresses pages link to. */
  paths: AssetPaths;
  byPath: Map<string, Asset>;
}

/** The stylesheet and script, each at an address naming its content's hash (so it can be cached for a year). */
export function loadAssets(): ReaderAssets {
  // assets/ sits beside src/ and dist/, so the same relative path serves the sources (tests) and the build.
  const read = (name: string) => readFileSync(new URL(`../../assets/${name}`, import.meta.url));
  const make = (name: string, type: string): Asset => {
    const body = read(name);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    return { path: `${ASSET_PREFIX}${hash}/${name}`, body, type };
  };
  const css = make('reader.css', 'text/css; charset=utf-8');
  const js = make('reader.js', 'text/javascript; charset=utf-8');
  return { paths: { css: css.path, js: js.path }, byPath: new Map([css, js].map((asset) => [asset.path, asset])) };
}
