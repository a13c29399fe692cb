import { pathToFileURL } from 'node:url';

/*
 * What the standalone benches (`node bench-dist/edit-bench.js`, `bench-dist/search-bench.js`,
 * `bench-dist/import-bench.js`) share: reading their options, printing their report, running as a script.
 */

/** The value after `--<name>` on the command line, if given. */
export function stringOption(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** The positive integer after `--<name>`, if given; throws when it is something else. */
export function positiveIntegerOption(name: string): number | undefined {
  const value = stringOption(name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive integer`);
  return parsed;
}

/** Writes the report to stdout: as JSON with `--json`, else as `format` lays it out. */
export function printReport<T>(report: T, format: (report: T) => string): void {
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify(report, null, 2)}\n` : `${format(report)}\n`);
}

/**
 * Runs `main` when the module at `moduleUrl` (its `import.meta.url`) is the script node was started with;
 * a failure is printed as `<label>: <message>` and exits with status 1.
 */
export function runIfScript(moduleUrl: string, label: string, main: () => Promise<void>): void {
  if (process.argv[1] && moduleUrl === pathToFileURL(process.argv[1]).href) {
    main().catch((error: unknown) => {
      process.stderr.write(`${label}: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
  }
}
