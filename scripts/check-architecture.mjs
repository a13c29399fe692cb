#!/usr/bin/env node
// Checks the layers of apps/server/src (scripts/architecture-layers.mjs says which folder is which layer and
// what each may import): fails, naming file, line and import, on an import a layer may not make, and on SQL
// built outside the layers that own it; and, beside the layers, that src/ imports no bench code or test support
// and the build of dist/ takes in none, that a test under src/ is a unit test (the placement rule of the
// server README), that benches build no SQL, and the lines per file of folders with a ceiling. Imports are
// read with the TypeScript parser, so `import type`, `import { type X }`, multi-line imports, re-exports and
// `await import()` are all seen for what they are.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Kysely query builders that start a statement; outside the SQL layers they mean SQL written elsewhere. */
const QUERY_BUILDERS = new Set(['selectFrom', 'selectNoFrom', 'insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto']);
/** `db.schema.<create|alter|drop...>(...)`: DDL, which belongs to migrations. */
const SCHEMA_BUILDER = /^(create|alter|drop)[A-Z]/;

function listSourceFiles(dir, root = dir) {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name === 'node_modules' || name === 'generated') continue;
      files.push(...listSourceFiles(path, root));
    } else if (/\.(ts|mts|cts)$/.test(name) && !/\.d\.(ts|mts|cts)$/.test(name)) {
      files.push(relative(root, path).split(sep).join('/'));
    }
  }
  return files;
}

/**
 * The layer of a file (a path relative to the source root, with `/`): the layer whose longest `paths`
 * prefix matches. A prefix ending in `/` is a folder; otherwise it names one file (`main.ts`).
 */
export function layerOf(file, layers) {
  let best;
  let bestLength = -1;
  for (const [name, layer] of Object.entries(layers)) {
    for (const prefix of layer.paths) {
      const matches = prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix;
      if (matches && prefix.length > bestLength) {
        best = name;
        bestLength = prefix.length;
      }
    }
  }
  return best;
}

/** `./x.js` -> `x.ts` (the source of what the compiled import loads), relative to the source root. */
function resolveRelative(fromFile, specifier, root, known) {
  const target = relative(root, resolve(root, dirname(fromFile), specifier)).split(sep).join('/');
  const candidates = [target, target.replace(/\.(m|c)?js$/, '.$1ts'), `${target}.ts`, `${target}/index.ts`];
  return candidates.find((candidate) => known.has(candidate)) ?? candidates[1];
}

/** `@scope/name/sub` -> `@scope/name`, `kysely/helpers` -> `kysely`, `node:fs` -> `node:fs`. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function isTypeOnlyImport(node) {
  const clause = node.importClause;
  if (!clause) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function isTypeOnlyExport(node) {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return Boolean(clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly));
}

/**
 * What one source file imports and which SQL it builds: `imports` as `{ specifier, line, typeOnly }`,
 * `sql` as `{ line, what }`.
 */
export function readModule(path, text = readFileSync(path, 'utf8')) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const imports = [];
  const sql = [];
  /** Local names bound to Kysely's `sql` tag. */
  const sqlNames = new Set();

  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const specifier = statement.moduleSpecifier.text;
      const typeOnly = isTypeOnlyImport(statement);
      imports.push({ specifier, line: lineOf(statement), typeOnly });
      const bindings = statement.importClause?.namedBindings;
      if (!typeOnly && packageName(specifier) === 'kysely' && bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if (!element.isTypeOnly && (element.propertyName ?? element.name).text === 'sql') sqlNames.add(element.name.text);
        }
      }
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      imports.push({ specifier: statement.moduleSpecifier.text, line: lineOf(statement), typeOnly: isTypeOnlyExport(statement) });
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)
      && ts.isStringLiteral(statement.moduleReference.expression)) {
      imports.push({ specifier: statement.moduleReference.expression.text, line: lineOf(statement), typeOnly: statement.isTypeOnly });
    }
  }

  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) imports.push({ specifier: argument.text, line: lineOf(node), typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      imports.push({ specifier: node.argument.literal.text, line: lineOf(node), typeOnly: true });
    } else if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && sqlNames.has(node.tag.text)) {
      sql.push({ line: lineOf(node), what: `Kysely ${node.tag.text}\`...\` template` });
    } else if (ts.isPropertyAccessExpression(node)) {
      const name = node.name.text;
      if (ts.isIdentifier(node.expression) && sqlNames.has(node.expression.text)) {
        sql.push({ line: lineOf(node), what: `Kysely ${node.expression.text}.${name}()` });
      } else if (QUERY_BUILDERS.has(name) && ts.isCallExpression(node.parent) && node.parent.expression === node) {
        sql.push({ line: lineOf(node.name), what: `.${name}()` });
      } else if (SCHEMA_BUILDER.test(name) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'schema') {
        sql.push({ line: lineOf(node.name), what: `.schema.${name}()` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { imports, sql };
}

function matchesPath(prefix, file) {
  return prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix;
}

/**
 * Whether `file` (in layer `from`) may import `target` (in layer `to`): its own layer, a shared one, one its
 * layer lists, or an allowance of the config naming both.
 */
function mayImport(config, file, from, target, to, typeOnly) {
  const layer = config.layers[from];
  if (to === from || config.layers[to].shared || layer.mayImport.includes(to)) return true;
  if (typeOnly && (layer.mayImportTypes ?? []).includes(to)) return true;
  return (config.allowances ?? []).some((allowance) => matchesPath(allowance.from, file) && matchesPath(allowance.to, target)
    && (typeOnly || !allowance.typeOnly));
}

function describeAllowed(layer) {
  const types = (layer.mayImportTypes ?? []).map((name) => `types of ${name}`);
  return [...layer.mayImport, ...types].join(', ') || 'only shared modules';
}

/**
 * Why product code may not import `target` (a path relative to the source root that leaves it): what sits
 * beside src/ (bench code in bench/, test support in test/) is never built into dist/, so an import of it
 * would either fail in production or pull it into the build.
 */
function outsideSourceMessage(target) {
  const what = /^\.\.\/bench\//.test(target) ? 'bench code' : /^\.\.\/test\//.test(target) ? 'test support' : 'a file outside src/';
  return `imports ${what} (${target.slice('../'.length)}): product code under src/ imports neither bench code nor test support, which are not built into dist/`;
}

function isKnown(entry, violation) {
  if (entry.file !== violation.file) return false;
  return entry.sql ? violation.kind === 'sql' : violation.kind !== 'sql' && entry.import === violation.import;
}

/**
 * Checks every source file under `root` against `config` (scripts/architecture-layers.mjs describes its
 * shape). Returns the violations, each `{ file, line, kind, import?, message }` sorted by file and line,
 * leaving out the config's known violations; `known` lists those that still occur and `unused` those that
 * no longer do (the check fails on them, so the list cannot go stale).
 */
export function checkArchitecture(root, config) {
  const files = listSourceFiles(root);
  const present = new Set(files);
  const violations = [];

  for (const file of files) {
    if ((config.tests ?? []).some((pattern) => pattern.test(file))) continue;
    const layerName = layerOf(file, config.layers);
    if (!layerName) {
      violations.push({ file, line: 1, kind: 'layer', message: `is in no layer: add it or its folder to ${config.name ?? 'the layer file'}` });
      continue;
    }
    const layer = config.layers[layerName];
    const { imports, sql } = readModule(join(root, file));

    for (const entry of imports) {
      if (entry.specifier.startsWith('.')) {
        const target = resolveRelative(file, entry.specifier, root, present);
        const targetLayer = target.startsWith('../') ? undefined : layerOf(target, config.layers);
        if (target.startsWith('../')) {
          violations.push({ file, line: entry.line, kind: 'import', import: entry.specifier, message: outsideSourceMessage(target) });
        } else if (!targetLayer) {
          violations.push({ file, line: entry.line, kind: 'import', import: entry.specifier, message: `imports ${target}, which is in no layer` });
        } else if (!mayImport(config, file, layerName, target, targetLayer, entry.typeOnly)) {
          const kind = entry.typeOnly ? 'a type-only import' : 'an import';
          violations.push({
            file, line: entry.line, kind: 'import', import: entry.specifier,
            message: `${kind} of ${targetLayer} (${target}) from ${layerName}, which may import ${describeAllowed(layer)}`,
          });
        }
      } else if (!entry.typeOnly && (layer.forbiddenPackages ?? []).includes(packageName(entry.specifier))) {
        violations.push({
          file, line: entry.line, kind: 'package', import: entry.specifier,
          message: `imports the package ${packageName(entry.specifier)}, which ${layerName} may not use`,
        });
      }
    }

    if (!layer.mayBuildSql) {
      const owners = Object.entries(config.layers).filter(([, other]) => other.mayBuildSql).map(([name]) => name).join(' and ');
      for (const use of sql) violations.push({ file, line: use.line, kind: 'sql', message: `builds SQL (${use.what}) outside ${owners}` });
    }
  }

  const knownViolations = config.knownViolations ?? [];
  const used = new Set();
  const remaining = violations.filter((violation) => {
    const index = knownViolations.findIndex((entry) => isKnown(entry, violation));
    if (index === -1) return true;
    used.add(index);
    return false;
  });
  remaining.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return {
    violations: remaining,
    known: knownViolations.filter((_, index) => used.has(index)),
    unused: knownViolations.filter((_, index) => !used.has(index)),
    files: files.length,
  };
}

/**
 * Checks folders that import the rest of the repository only as packages (`clientApps` and `sharedPackages`
 * of the layer file): no file of theirs (sources or tests) imports by a relative path leaving its folder,
 * or a forbidden package (the server itself, database drivers...). Returns violations shaped like
 * checkArchitecture's.
 */
export function checkClientApps(rules) {
  const violations = [];
  for (const app of rules.folders) {
    const appRoot = join(rules.root, app);
    let files;
    try {
      files = listSourceFiles(appRoot).filter((file) => !file.startsWith('dist/'));
    } catch {
      continue;
    }
    for (const file of files) {
      const { imports } = readModule(join(appRoot, file));
      for (const entry of imports) {
        const shown = `${app}/${file}`;
        if (entry.specifier.startsWith('.')) {
          const target = relative(appRoot, resolve(dirname(join(appRoot, file)), entry.specifier));
          if (target.startsWith('..')) {
            violations.push({ file: shown, line: entry.line, kind: 'import', import: entry.specifier, message: `reaches outside ${app} (${rules.why})` });
          }
        } else if (rules.forbiddenPackages.includes(packageName(entry.specifier))) {
          violations.push({
            file: shown, line: entry.line, kind: 'package', import: entry.specifier,
            message: `imports the package ${packageName(entry.specifier)} (${rules.why})`,
          });
        }
      }
    }
  }
  return violations;
}

/** `x.js` -> `x.ts`: the source file a compiled import loads, relative to `root`, with `/`. */
function sourcePathOf(root, fromFile, specifier) {
  return relative(root, resolve(root, dirname(fromFile), specifier)).split(sep).join('/').replace(/\.(m|c)?js$/, '.$1ts');
}

/**
 * The test-placement rule (`testPlacement` of the layer file): a test beside the code under src/ is a unit
 * test, so it imports none of what starts a server, spawns a built process, drives a browser or goes through
 * the client. Returns violations shaped like checkArchitecture's, paths relative to `rules.root`.
 */
export function checkTestPlacement(rules) {
  const violations = [];
  const files = listSourceFiles(join(rules.root, rules.source)).filter((file) => /\.test\.ts$/.test(file));
  for (const name of files) {
    const file = `${rules.source}/${name}`;
    for (const entry of readModule(join(rules.root, file)).imports) {
      const forbidden = entry.specifier.startsWith('.')
        ? rules.forbiddenImports[sourcePathOf(rules.root, file, entry.specifier)]
        : rules.forbiddenPackages[packageName(entry.specifier)];
      if (forbidden) {
        violations.push({
          file, line: entry.line, kind: 'test-placement', import: entry.specifier,
          message: `a test under ${rules.source}/ that ${forbidden}: move it to test/ (${rules.why})`,
        });
      }
    }
  }
  return violations;
}

/**
 * What the build of dist/ takes in (`outsideProduct` of the layer file): the tsconfig that builds dist/ may
 * list no file of the folders beside src/ (bench code, test support) and no test, and the bench's build may
 * not write into dist/. Read with TypeScript's own config parser, so `include`, `exclude` and `extends` count
 * as tsc counts them; no build needed. Returns violations shaped like checkArchitecture's.
 */
export function checkProductBuild(rules) {
  const parse = (file) => {
    const parsed = ts.getParsedCommandLineOfConfigFile(join(rules.root, file), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    if (!parsed) throw new Error(`cannot read ${join(rules.root, file)}`);
    return parsed;
  };
  const violations = [];
  const build = parse(rules.build);
  const buildOut = build.options.outDir ?? rules.root;
  for (const file of build.fileNames.map((path) => relative(rules.root, path).split(sep).join('/')).sort()) {
    const outside = rules.folders.find((folder) => file.startsWith(folder));
    if (outside || /\.test\.ts$/.test(file)) {
      violations.push({
        file: rules.build, line: 1, kind: 'build',
        message: `builds ${file} into ${relative(rules.root, buildOut)}/: ${outside ? `${outside} is not product code` : 'a test is not product code'}, so the build must not include it`,
      });
    }
  }
  const benchOut = parse(rules.benchBuild).options.outDir;
  if (!benchOut || !relative(buildOut, benchOut).startsWith('..')) {
    violations.push({
      file: rules.benchBuild, line: 1, kind: 'build',
      message: `writes the benches into ${benchOut ? relative(rules.root, benchOut) : 'its own folder'}, which must be an outDir outside ${relative(rules.root, buildOut)}/`,
    });
  }
  return violations;
}

/** Benches put their data in through services and stores (`outsideProduct.benches`), never with SQL of their own. */
export function checkBenchSql(rules) {
  const violations = [];
  for (const name of listSourceFiles(join(rules.root, rules.benches))) {
    const file = `${rules.benches}${name}`;
    for (const use of readModule(join(rules.root, file)).sql) {
      violations.push({ file, line: use.line, kind: 'sql', message: `builds SQL (${use.what}) in a bench: benches write and read through services and stores` });
    }
  }
  return violations;
}

/** Lines of a text as `wc -l` counts them, plus a last line without its newline. */
function lineCount(text) {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/**
 * Lines per file (`fileSizes` of the layer file): every file but tests under a ceiling's folder has at most
 * its `maxLines`. Returns `{ violations, known, unused }` like checkArchitecture: known violations are
 * passed over while they occur, and reported once they no longer do.
 */
export function checkFileSizes(rules) {
  const violations = [];
  for (const ceiling of rules.ceilings) {
    for (const name of listSourceFiles(join(rules.root, ceiling.folder))) {
      if (rules.tests.some((pattern) => pattern.test(name))) continue;
      const file = `${ceiling.folder}/${name}`;
      const lines = lineCount(readFileSync(join(rules.root, file), 'utf8'));
      if (lines > ceiling.maxLines) {
        violations.push({ file, line: 1, kind: 'size', message: `has ${lines} lines, over the ceiling of ${ceiling.maxLines} lines per file in ${ceiling.folder}/: split it` });
      }
    }
  }
  const known = rules.knownViolations ?? [];
  const occurring = new Set(violations.map((violation) => violation.file));
  return {
    violations: violations.filter((violation) => !known.some((entry) => entry.file === violation.file)),
    known: known.filter((entry) => occurring.has(entry.file)),
    unused: known.filter((entry) => !occurring.has(entry.file)),
  };
}

export function formatViolation(violation) {
  const what = violation.import ? ` import '${violation.import}':` : '';
  return `${violation.file}:${violation.line}:${what} ${violation.message}`;
}

async function main() {
  const { default: config, sourceRoot, clientApps, sharedPackages, outsideProduct, testPlacement, fileSizes } = await import('./architecture-layers.mjs');
  const result = checkArchitecture(sourceRoot, config);
  const sizes = checkFileSizes(fileSizes);
  const problems = [
    ...checkClientApps(clientApps).map(formatViolation),
    ...checkClientApps(sharedPackages).map(formatViolation),
    ...result.violations.map(formatViolation),
    ...result.unused.map((entry) => `${entry.file}: listed as a known violation (${entry.sql ? 'builds SQL' : `import '${entry.import}'`}) but no longer one: remove it from scripts/architecture-layers.mjs`),
    ...checkTestPlacement(testPlacement).map(formatViolation),
    ...checkProductBuild(outsideProduct).map(formatViolation),
    ...checkBenchSql(outsideProduct).map(formatViolation),
    ...sizes.violations.map(formatViolation),
    ...sizes.unused.map((entry) => `${entry.file}: listed as over its size ceiling but no longer is: remove it from fileSizes in scripts/architecture-layers.mjs`),
  ];
  if (problems.length) {
    console.error(`architecture check: ${problems.length} problem(s) (layers: scripts/architecture-layers.mjs)`);
    for (const problem of problems) console.error(`  ${problem}`);
    process.exit(1);
  }
  const knownNote = result.known.length ? `; ${result.known.length} known violation(s) still listed for other work to remove:` : '';
  console.log(`architecture check: ${result.files} files follow the layers${knownNote}`);
  for (const entry of result.known) console.log(`  ${entry.file}: ${entry.sql ? 'builds SQL' : `import '${entry.import}'`} (${entry.why})`);
  if (sizes.known.length) console.log(`file sizes: ${sizes.known.length} file(s) over their ceiling still listed for other work to split:`);
  for (const entry of sizes.known) console.log(`  ${entry.file} (${entry.why})`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
