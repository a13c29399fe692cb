import { createHash } from 'node:crypto';

/**
 * Content addressing. Every stored content object (page, tree root, file description, byte blob) is keyed by
 * the SHA-256 of its bytes, so identical content is stored once and an unchanged subtree keeps its key.
 *
 * The hash covers a git-style header (`<kind> <length>\0`) before the bytes. Without it a file whose bytes
 * happen to equal a page object's JSON (or an uploaded `.md` file equal to a page's markdown) would share a
 * key with an object of another kind, and "insert ... on conflict do nothing" would keep whichever came
 * first under the wrong kind.
 */
export type ObjectKind = 'root' | 'page' | 'file' | 'reusable' | 'blob';

/** SHA-256 of the given bytes (or UTF-8 text), as 64 lowercase hex characters. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The key of an object of `kind` whose stored bytes are `body`. */
export function hashObject(kind: ObjectKind, body: Uint8Array): string {
  return createHash('sha256').update(`${kind} ${body.byteLength}\0`, 'utf8').update(body).digest('hex');
}

/** The key of a markdown blob: the blob of its UTF-8 bytes. */
export function hashMarkdown(markdown: string): string {
  return hashObject('blob', Buffer.from(markdown, 'utf8'));
}

/**
 * JSON with object keys sorted (recursively) and no insignificant whitespace, so that equal values always
 * serialise to the same bytes whatever order their properties were set in. `undefined` properties are left
 * out (as JSON.stringify does); values JSON cannot represent exactly are refused rather than silently
 * changed, because a hash of a lossy serialisation would make two different objects equal.
 */
export function canonicalJson(value: unknown): string {
  return serialise(value, new Set());
}

function serialise(value: unknown, ancestors: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: cannot serialise ${value}`);
      // -0 and 0 must hash alike; JSON.stringify already writes both as 0.
      return JSON.stringify(value);
    case 'object': {
      if (ancestors.has(value)) throw new TypeError('canonicalJson: cyclic value');
      ancestors.add(value);
      try {
        if (Array.isArray(value)) return `[${value.map((item) => serialise(item ?? null, ancestors)).join(',')}]`;
        const proto = Object.getPrototypeOf(value) as unknown;
        if (proto !== Object.prototype && proto !== null) {
          throw new TypeError('canonicalJson: only plain objects, arrays and primitives are allowed');
        }
        const record = value as Record<string, unknown>;
        const parts: string[] = [];
        for (const key of Object.keys(record).sort()) {
          const item = record[key];
          if (item === undefined) continue;
          parts.push(`${JSON.stringify(key)}:${serialise(item, ancestors)}`);
        }
        return `{${parts.join(',')}}`;
      } finally {
        ancestors.delete(value);
      }
    }
    default:
      throw new TypeError(`canonicalJson: cannot serialise a ${typeof value}`);
  }
}

/** The stored bytes and key of a JSON object of `kind`. */
export function encodeJsonObject(kind: Exclude<ObjectKind, 'blob'>, value: unknown): { hash: string; body: Buffer } {
  const body = Buffer.from(canonicalJson(value), 'utf8');
  return { hash: hashObject(kind, body), body };
}
