import jsep from 'jsep';

/*
 * Adaptive-content conditions of docs sites (a site space's or a section's `condition`): expressions over the
 * visitor's claims such as `visitor.claims.unsigned.beta && visitor.claims.plan == "pro"`. They are parsed
 * with jsep (a JavaScript expression parser) and then checked against the small language the service
 * accepts: claim references under `visitor.claims`, literals, `!`, `&&`, `||` and comparisons. Pure, so that
 * the API checks a condition when it is set and the published-site reader decides with the same code what a
 * visitor sees.
 */

export type ConditionNode =
  | { kind: 'claim'; path: string[] }
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'not'; operand: ConditionNode }
  | { kind: 'negate'; operand: ConditionNode }
  | { kind: 'logical'; operator: '&&' | '||'; left: ConditionNode; right: ConditionNode }
  | { kind: 'compare'; operator: CompareOperator; left: ConditionNode; right: ConditionNode };

const COMPARE_OPERATORS = ['==', '!=', '===', '!==', '<', '<=', '>', '>='] as const;
type CompareOperator = (typeof COMPARE_OPERATORS)[number];

export class ConditionError extends Error {
  override readonly name = 'ConditionError';
}

function isCompare(operator: string): operator is CompareOperator {
  return (COMPARE_OPERATORS as readonly string[]).includes(operator);
}

/** `visitor.claims.a.b` -> ['a', 'b']; anything else is not a claim reference. */
function claimPath(node: jsep.Expression): string[] {
  const names: string[] = [];
  let current: jsep.Expression = node;
  while (current.type === 'MemberExpression') {
    const member = current as jsep.MemberExpression;
    if (member.computed || member.property.type !== 'Identifier') throw new ConditionError('claims are named with dots (visitor.claims.name), not brackets');
    names.unshift((member.property as jsep.Identifier).name);
    current = member.object;
  }
  if (current.type !== 'Identifier') throw new ConditionError('only visitor.claims.<name> references are allowed');
  names.unshift((current as jsep.Identifier).name);
  if (names[0] !== 'visitor' || names[1] !== 'claims' || names.length < 3) {
    throw new ConditionError(`"${names.join('.')}" is not a claim: write visitor.claims.<name> or visitor.claims.unsigned.<name>`);
  }
  return names.slice(2);
}

function convert(node: jsep.Expression): ConditionNode {
  switch (node.type) {
    case 'Literal': {
      const value = (node as jsep.Literal).value;
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) return { kind: 'literal', value };
      throw new ConditionError('regular expressions and other literals are not allowed');
    }
    case 'Identifier':
    case 'MemberExpression':
      return { kind: 'claim', path: claimPath(node) };
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      if (unary.operator === '!') return { kind: 'not', operand: convert(unary.argument) };
      if (unary.operator === '-') return { kind: 'negate', operand: convert(unary.argument) };
      throw new ConditionError(`the operator "${unary.operator}" is not allowed`);
    }
    case 'BinaryExpression':
    case 'LogicalExpression': {
      const binary = node as jsep.BinaryExpression;
      if (binary.operator === '&&' || binary.operator === '||') return { kind: 'logical', operator: binary.operator, left: convert(binary.left), right: convert(binary.right) };
      if (isCompare(binary.operator)) return { kind: 'compare', operator: binary.operator, left: convert(binary.left), right: convert(binary.right) };
      throw new ConditionError(`the operator "${binary.operator}" is not allowed`);
    }
    case 'Compound':
      throw new ConditionError('a condition is one expression');
    default:
      throw new ConditionError(`${node.type} is not allowed in a condition`);
  }
}

/** Parses a condition; throws ConditionError saying what is wrong. */
export function parseCondition(text: string): ConditionNode {
  if (text.trim() === '') throw new ConditionError('the condition is empty');
  let parsed: jsep.Expression;
  try {
    parsed = jsep(text);
  } catch (error) {
    throw new ConditionError((error as Error).message);
  }
  return convert(parsed);
}

/** Every claim path the condition reads (`['unsigned', 'beta']`), for checking them against a schema. */
export function conditionClaims(node: ConditionNode): string[][] {
  switch (node.kind) {
    case 'claim':
      return [node.path];
    case 'literal':
      return [];
    case 'not':
    case 'negate':
      return conditionClaims(node.operand);
    case 'logical':
    case 'compare':
      return [...conditionClaims(node.left), ...conditionClaims(node.right)];
  }
}

type Value = unknown;

function valueOf(node: ConditionNode, claims: Record<string, unknown>): Value {
  switch (node.kind) {
    case 'claim': {
      let current: unknown = claims;
      for (const name of node.path) {
        if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, name)) return undefined;
        current = (current as Record<string, unknown>)[name];
      }
      return current;
    }
    case 'literal':
      return node.value;
    case 'not':
      return !valueOf(node.operand, claims);
    case 'negate': {
      const value = valueOf(node.operand, claims);
      return typeof value === 'number' ? -value : undefined;
    }
    case 'logical': {
      const left = valueOf(node.left, claims);
      if (node.operator === '&&') return left ? valueOf(node.right, claims) : left;
      return left ? left : valueOf(node.right, claims);
    }
    case 'compare': {
      // A claim the visitor does not have compares like null (`visitor.claims.x != null`).
      const left = valueOf(node.left, claims) ?? null;
      const right = valueOf(node.right, claims) ?? null;
      switch (node.operator) {
        case '==':
        case '===':
          return left === right;
        case '!=':
        case '!==':
          return left !== right;
        default: {
          // Ordering only between two numbers or two strings; anything else is false (no coercion).
          if (!((typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string'))) return false;
          if (node.operator === '<') return left < right;
          if (node.operator === '<=') return left <= right;
          if (node.operator === '>') return left > right;
          return left >= right;
        }
      }
    }
  }
}

/** Whether a visitor with these claims (`{unsigned: {...}, ...signed}`) sees what the condition guards. */
export function evaluateCondition(node: ConditionNode, claims: Record<string, unknown>): boolean {
  return Boolean(valueOf(node, claims));
}
