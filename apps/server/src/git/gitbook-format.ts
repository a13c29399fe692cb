/**
 * The small file formats of a GitBook-style repository: `.gitbook.yaml`, page front matter, slugs and paths.
 * The YAML here is the subset these files use (nested mappings of scalars); a full YAML parser is not a
 * dependency of the server, and these files never need more.
 */
import { posix } from 'node:path';
import { GitError } from './run-git.js';

export type YamlValue = string | boolean | number | null | YamlMap;
export interface YamlMap {
  [key: string]: YamlValue;
}

function parseScalar(raw: string): YamlValue {
  const text = raw.trim();
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, text.endsWith('"') ? -1 : undefined);
    }
  }
  if (text.startsWith("'")) return text.slice(1, text.endsWith("'") ? -1 : undefined).replace(/''/g, "'");
  if (/^(true|yes|on)$/i.test(text)) return true;
  if (/^(false|no|off)$/i.test(text)) return false;
  if (text === '' || text === '~' || text === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

/** Drops a `# comment` that is not inside quotes. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return line.slice(0, i);
    }
  }
  return line;
}

/**
 * Parses nested `key: value` mappings by indentation. Sequences and other constructs are skipped (their lines
 * are ignored), so an unexpected file yields fewer settings rather than an error.
 */
export function parseSimpleYaml(text: string): YamlMap {
  const root: YamlMap = {};
  const stack: { indent: number; map: YamlMap }[] = [{ indent: -1, map: root }];
  for (const rawLine of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = stripComment(rawLine).replace(/\s+$/, '');
    if (line.trim() === '' || line.trim() === '---' || line.trim() === '...') continue;
    const indent = line.length - line.trimStart().length;
    const match = /^([^:]+?|"[^"]*"|'[^']*'):(?:\s+(.*))?$/.exec(line.trim());
    if (!match || line.trim().startsWith('- ')) continue;
    while (stack.length > 1 && (stack[stack.length - 1]?.indent ?? -1) >= indent) stack.pop();
    const parent = stack[stack.length - 1]?.map ?? root;
    const key = String(parseScalar(match[1] ?? ''));
    const value = match[2];
    if (value === undefined || value.trim() === '') {
      const child: YamlMap = {};
      parent[key] = child;
      stack.push({ indent, map: child });
    } else {
      parent[key] = parseScalar(value);
    }
  }
  return root;
}

/** A scalar written so that `parseSimpleYaml` (and any YAML parser) reads it back as the same string. */
export function yamlString(value: string): string {
  const plain =
    /^[A-Za-z0-9_./][\w .,/()+-]*$/.test(value) &&
    !/\s$/.test(value) &&
    !/^(true|false|yes|no|on|off|null|~|-?\d+(\.\d+)?)$/i.test(value);
  if (plain) {
    return value;
  }
  return JSON.stringify(value);
}

export interface GitbookConfig {
  /** The content root, relative to the project directory. */
  root: string;
  readme: string;
  summary: string;
}

export const DEFAULT_CONFIG: GitbookConfig = { root: '', readme: 'README.md', summary: 'SUMMARY.md' };

export function parseGitbookConfig(text: string): GitbookConfig {
  const yaml = parseSimpleYaml(text);
  const structure = typeof yaml.structure === 'object' && yaml.structure !== null ? yaml.structure : {};
  const str = (value: YamlValue | undefined, fallback: string) =>
    typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
  return {
    root: str(yaml.root, ''),
    readme: str(structure.readme, DEFAULT_CONFIG.readme),
    summary: str(structure.summary, DEFAULT_CONFIG.summary),
  };
}

export function serializeGitbookConfig(config: GitbookConfig): string {
  return [
    `root: ${yamlString(config.root === '' ? './' : `./${config.root}/`)}`,
    '',
    'structure:',
    `  readme: ${yamlString(config.readme)}`,
    `  summary: ${yamlString(config.summary)}`,
    '',
  ].join('\n');
}

/**
 * Normalizes a path inside the repository: forward slashes, no `.` segments, no leading or trailing slash.
 * Refuses paths that leave the repository (`..` above the root) or are absolute: they come from users and
 * from repository files, and must never point outside the clone.
 */
export function repoPath(path: string, what = 'path'): string {
  const cleaned = path.replace(/\\/g, '/').trim();
  if (cleaned.startsWith('/')) throw new GitError('invalid-path', `The ${what} "${path}" must be relative to the repository`);
  const normalized = posix.normalize(cleaned === '' ? '.' : cleaned).replace(/\/+$/, '');
  if (normalized === '..' || normalized.startsWith('../')) {
    throw new GitError('invalid-path', `The ${what} "${path}" points outside the repository`);
  }
  return normalized === '.' ? '' : normalized;
}

export function joinPath(...parts: string[]): string {
  return repoPath(parts.filter((part) => part !== '').join('/'));
}

/** Lowercase ASCII words joined by hyphens, at most 100 characters; never empty. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 100)
    .replace(/-+$/, '');
  return slug === '' ? 'page' : slug;
}

/** `getting-started` -> `Getting started`: a title for a file or folder that has none. */
export function humanize(name: string): string {
  const words = name.replace(/\.md$/i, '').replace(/[-_]+/g, ' ').trim();
  return words === '' ? 'Untitled' : words.charAt(0).toUpperCase() + words.slice(1);
}

/** Makes `slug` unique among `taken` (which it then joins): `intro`, `intro-2`, `intro-3`... */
export function uniqueSlug(slug: string, taken: Set<string>): string {
  let candidate = slug;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${slug.slice(0, 95)}-${n}`;
  taken.add(candidate);
  return candidate;
}

export interface PageMeta {
  /** Only reusable contents (`.gitbook/includes/`) name their title in their front matter. */
  title?: string;
  description?: string;
  icon?: string;
  hidden?: boolean;
}

/**
 * Splits a page file into front matter settings and body. Only `description`, `icon` and `hidden` mean
 * something to Quire; the block is removed either way (other keys are dropped).
 */
export function splitFrontMatter(markdown: string): { meta: PageMeta; body: string } {
  const match = /^---\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(markdown);
  if (!match) return { meta: {}, body: markdown };
  const yaml = parseSimpleYaml(match[1] ?? '');
  const meta: PageMeta = {};
  if (typeof yaml.title === 'string' && yaml.title !== '') meta.title = yaml.title;
  if (typeof yaml.description === 'string' && yaml.description !== '') meta.description = yaml.description;
  if (typeof yaml.icon === 'string' && yaml.icon !== '') meta.icon = yaml.icon;
  if (yaml.hidden === true) meta.hidden = true;
  return { meta, body: markdown.slice(match[0].length) };
}

export function serializeFrontMatter(meta: PageMeta): string {
  const lines: string[] = [];
  if (meta.title) lines.push(`title: ${yamlString(meta.title)}`);
  if (meta.description) lines.push(`description: ${yamlString(meta.description)}`);
  if (meta.icon) lines.push(`icon: ${yamlString(meta.icon)}`);
  if (meta.hidden) lines.push('hidden: true');
  return lines.length === 0 ? '' : `---\n${lines.join('\n')}\n---\n\n`;
}

/**
 * Line endings to `\n`, no leading blank lines, exactly one final newline (none when empty). `trimEnd` takes off
 * what `/\s+$/` did (the same white space and line terminators) without retrying that pattern at every space.
 */
export function normalizeMarkdown(markdown: string): string {
  const text = markdown.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd();
  return text === '' ? '' : `${text}\n`;
}

/**
 * Takes the page title off the top of a page file: a first line `# Title` is the title, not content (GitBook
 * writes pages this way, and so does the export).
 */
export function takeTitle(body: string): { title?: string; body: string } {
  const match = /^# +(.+?)(?: +#+)? *(?:\n|$)/.exec(body);
  if (!match) return { body };
  return { title: (match[1] ?? '').trim(), body: body.slice(match[0].length) };
}
