import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the repository, whatever the current directory. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
