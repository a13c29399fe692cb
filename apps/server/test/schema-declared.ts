import { readFileSync } from 'node:fs';
import ts from 'typescript';

/**
 * What `src/db/schema.ts` declares about each column, read with the TypeScript compiler so that the test of
 * the schema compares the hand-written row types with the tables the migrations make.
 *
 * A column's TypeScript type is reduced to the storage family it implies:
 * - `string` and string literals (directly or through an alias of the file such as `JobStatus`): `text`;
 * - `number`: `number` (an integer or real column);
 * - `number | string`: `bigint`, an integer column that PostgreSQL answers as a string (its int8);
 * - `Uint8Array`: `blob`;
 * - `| null` makes it nullable; `Generated<T>` is T, inserted without a value (the column needs a default);
 *   `ColumnType<S, I, U>` is its select type S.
 * Anything else (a boolean, an object) cannot be stored as such and is reported as a family of its own.
 */
export interface DeclaredColumn {
  families: string[];
  nullable: boolean;
  generated: boolean;
}

/** Table name -> column name -> what schema.ts declares, from the `Database` interface and the row interfaces. */
export function readDeclaredSchema(schemaPath: string): Map<string, Map<string, DeclaredColumn>> {
  const source = ts.createSourceFile(schemaPath, readFileSync(schemaPath, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const aliases = new Map<string, ts.TypeAliasDeclaration>();
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement)) interfaces.set(statement.name.text, statement);
    if (ts.isTypeAliasDeclaration(statement)) aliases.set(statement.name.text, statement);
  }
  const database = interfaces.get('Database');
  if (!database) throw new Error(`${schemaPath} has no Database interface`);

  const parts = (type: ts.TypeNode): ts.TypeNode[] => {
    if (ts.isUnionTypeNode(type)) return type.types.flatMap(parts);
    if (ts.isParenthesizedTypeNode(type)) return parts(type.type);
    if (ts.isTypeReferenceNode(type)) {
      const name = type.typeName.getText(source);
      const alias = aliases.get(name);
      if (alias) return parts(alias.type);
      if ((name === 'Generated' || name === 'ColumnType') && type.typeArguments?.[0]) return parts(type.typeArguments[0]);
    }
    return [type];
  };
  const familyOf = (type: ts.TypeNode): string => {
    if (type.kind === ts.SyntaxKind.StringKeyword) return 'text';
    if (type.kind === ts.SyntaxKind.NumberKeyword) return 'number';
    if (ts.isLiteralTypeNode(type)) {
      if (ts.isStringLiteral(type.literal)) return 'text';
      if (ts.isNumericLiteral(type.literal)) return 'number';
      if (type.literal.kind === ts.SyntaxKind.NullKeyword) return 'null';
    }
    if (ts.isTypeReferenceNode(type) && type.typeName.getText(source) === 'Uint8Array') return 'blob';
    return type.getText(source);
  };

  const tables = new Map<string, Map<string, DeclaredColumn>>();
  for (const member of database.members) {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isTypeReferenceNode(member.type)) {
      throw new Error(`Database.${member.name?.getText(source)} is not a reference to a row interface`);
    }
    const rowName = member.type.typeName.getText(source);
    const row = interfaces.get(rowName);
    if (!row) throw new Error(`Database.${member.name!.getText(source)} refers to ${rowName}, which schema.ts does not declare`);
    const columns = new Map<string, DeclaredColumn>();
    for (const column of row.members) {
      if (!ts.isPropertySignature(column) || !column.type) throw new Error(`${rowName} has a member that is not a column`);
      const all = parts(column.type).map(familyOf);
      const generated = ts.isTypeReferenceNode(column.type) && column.type.typeName.getText(source) === 'Generated';
      columns.set(column.name.getText(source), {
        families: [...new Set(all.filter((family) => family !== 'null'))].sort(),
        nullable: all.includes('null'),
        generated,
      });
    }
    tables.set(member.name.getText(source), columns);
  }
  return tables;
}

/** The family a column's declared families stand for: `number | string` is a bigint, one family is itself. */
export function declaredFamily(column: DeclaredColumn): string {
  const families = column.families.join(' | ');
  return families === 'number | text' ? 'bigint' : families;
}
