import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/*
 * The adaptive-content schema of a docs site: a draft-07 JSON Schema of type object that declares the claims
 * of the site's visitors, signed ones in `properties` and unsigned ones under `properties.unsigned`. Checked
 * with Ajv twice: against the draft-07 meta-schema (it must be a JSON Schema at all), then against the rules
 * of the contract (SiteAdaptiveJSONSchema: claim forms, descriptions, `additionalProperties: false` at every
 * level). Pure, so the published-site reader can validate a visitor's claims with the same schema.
 */

export type AdaptiveJsonSchema = {
  $schema?: string;
  type: 'object';
  properties: Record<string, AdaptiveClaim>;
  additionalProperties: false;
};

export type AdaptiveClaim =
  | { type: 'boolean' | 'number'; description: string }
  | { type: 'string'; description: string; enum?: string[] }
  | { type: 'array'; description: string; items: { type: 'string' | 'number' | 'boolean' } }
  | { type: 'object'; description: string; properties: Record<string, AdaptiveClaim>; additionalProperties: false };

export const UNSIGNED_DESCRIPTION = 'Unsigned claims of the site visitor.';

/** Claim names are identifiers, so that a condition can name them (`visitor.claims.<name>`). */
const CLAIM_NAMES = { pattern: '^[A-Za-z_$][A-Za-z0-9_$]*$' };

const CLAIM = {
  $id: 'quire:adaptive-claim',
  oneOf: [
    { type: 'object', required: ['type', 'description'], additionalProperties: false, properties: { type: { enum: ['boolean', 'number'] }, description: { type: 'string' } } },
    { type: 'object', required: ['type', 'description'], additionalProperties: false, properties: { type: { const: 'string' }, description: { type: 'string' }, enum: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' } } } },
    {
      type: 'object', required: ['type', 'description', 'items'], additionalProperties: false,
      properties: { type: { const: 'array' }, description: { type: 'string' }, items: { type: 'object', required: ['type'], additionalProperties: false, properties: { type: { enum: ['string', 'number', 'boolean'] } } } },
    },
    {
      type: 'object', required: ['type', 'description', 'properties', 'additionalProperties'], additionalProperties: false,
      properties: { type: { const: 'object' }, description: { type: 'string' }, properties: { type: 'object', propertyNames: CLAIM_NAMES, additionalProperties: { $ref: 'quire:adaptive-claim' } }, additionalProperties: { const: false } },
    },
  ],
};

/** The rules beyond draft-07 itself, as a schema over the submitted schema. */
const RULES = {
  type: 'object',
  required: ['type', 'properties', 'additionalProperties'],
  additionalProperties: false,
  properties: {
    $schema: { const: 'http://json-schema.org/draft-07/schema#' },
    type: { const: 'object' },
    additionalProperties: { const: false },
    properties: {
      type: 'object',
      propertyNames: CLAIM_NAMES,
      properties: {
        unsigned: {
          type: 'object',
          required: ['type', 'description', 'properties', 'additionalProperties'],
          additionalProperties: false,
          properties: {
            type: { const: 'object' },
            description: { const: UNSIGNED_DESCRIPTION },
            properties: { type: 'object', propertyNames: CLAIM_NAMES, additionalProperties: { $ref: 'quire:adaptive-claim' } },
            additionalProperties: { const: false },
          },
        },
      },
      additionalProperties: { $ref: 'quire:adaptive-claim' },
    },
  },
};

export class AdaptiveSchemaError extends Error {
  override readonly name = 'AdaptiveSchemaError';
}

let checker: { ajv: Ajv; rules: ValidateFunction } | undefined;

function ajvChecker(): { ajv: Ajv; rules: ValidateFunction } {
  if (!checker) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addSchema(CLAIM);
    checker = { ajv, rules: ajv.compile(RULES) };
  }
  return checker;
}

function describeErrors(errors: ErrorObject[] | null | undefined, prefix: string): string {
  // oneOf failures repeat one message per branch; the first few distinct ones say enough.
  const messages = [...new Set((errors ?? []).map((error) => `${prefix}${error.instancePath} ${error.message ?? 'is invalid'}`))];
  return messages.slice(0, 5).join('; ');
}

/** Checks a submitted schema; throws AdaptiveSchemaError naming what is wrong (`field` prefixes the paths). */
export function checkAdaptiveSchema(schema: unknown, field: string): AdaptiveJsonSchema {
  const { ajv, rules } = ajvChecker();
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new AdaptiveSchemaError(`${field} must be an object`);
  if (!ajv.validateSchema(schema as object, false)) throw new AdaptiveSchemaError(`${field} is not a draft-07 JSON Schema: ${describeErrors(ajv.errors, field)}`);
  if (!rules(schema)) throw new AdaptiveSchemaError(`${field} breaks the rules of adaptive schemas: ${describeErrors(rules.errors, field)}`);
  return schema as AdaptiveJsonSchema;
}

export interface TemplateCondition {
  description: string;
  condition: string;
}

function quote(value: string): string {
  return JSON.stringify(value);
}

/** A ready-made condition per claim (nested object claims: per leaf claim), over `visitor.claims.<path>`. */
function claimConditions(claims: Record<string, AdaptiveClaim>, path: string[]): TemplateCondition[] {
  const out: TemplateCondition[] = [];
  for (const [name, claim] of Object.entries(claims)) {
    const reference = ['visitor', 'claims', ...path, name].join('.');
    switch (claim.type) {
      case 'boolean':
        out.push({ description: claim.description, condition: reference });
        break;
      case 'string':
        out.push(claim.enum
          ? { description: `${claim.description} is ${quote(claim.enum[0]!)}`, condition: `${reference} == ${quote(claim.enum[0]!)}` }
          : { description: `${claim.description} is set`, condition: `${reference} != null` });
        break;
      case 'number':
        out.push({ description: `${claim.description} is above zero`, condition: `${reference} > 0` });
        break;
      case 'array':
        out.push({ description: `${claim.description} is set`, condition: `${reference} != null` });
        break;
      case 'object':
        out.push(...claimConditions(claim.properties, [...path, name]));
        break;
    }
  }
  return out;
}

export function templateConditions(schema: AdaptiveJsonSchema): TemplateCondition[] {
  const { unsigned, ...signed } = schema.properties;
  const unsignedClaims = unsigned && unsigned.type === 'object' ? unsigned.properties : {};
  return [...claimConditions(unsignedClaims, ['unsigned']), ...claimConditions(signed, [])];
}

/** Whether the schema declares the claim at `path` (`['unsigned', 'beta']`, `['account', 'seats']`). */
export function declaresClaim(schema: AdaptiveJsonSchema, path: readonly string[]): boolean {
  let claims: Record<string, AdaptiveClaim | { type: 'object'; properties: Record<string, AdaptiveClaim> }> = schema.properties;
  for (const [index, name] of path.entries()) {
    const claim = Object.prototype.hasOwnProperty.call(claims, name) ? claims[name] : undefined;
    if (!claim) return false;
    if (index === path.length - 1) return true;
    if (claim.type !== 'object') return false;
    claims = claim.properties;
  }
  return false;
}
