import { describe, expect, it } from 'vitest';
import { AdaptiveSchemaError, checkAdaptiveSchema, declaresClaim, templateConditions } from './site-adaptive-schema.js';
import { parseCondition } from './site-conditions.js';

const unsigned = { type: 'object', description: 'Unsigned claims of the site visitor.', properties: { beta: { type: 'boolean', description: 'Beta' } }, additionalProperties: false };
const valid = { type: 'object', properties: { unsigned, plan: { type: 'string', enum: ['free', 'pro'], description: 'Plan' }, tags: { type: 'array', items: { type: 'string' }, description: 'Tags' } }, additionalProperties: false };

describe('site adaptive schema', () => {
  it('accepts the claim forms and derives conditions the condition parser accepts', () => {
    const schema = checkAdaptiveSchema(valid, 'jsonSchema');
    const conditions = templateConditions(schema);
    expect(conditions.map((item) => item.condition)).toEqual(['visitor.claims.unsigned.beta', 'visitor.claims.plan == "free"', 'visitor.claims.tags != null']);
    for (const { condition } of conditions) parseCondition(condition);
    expect(declaresClaim(schema, ['unsigned', 'beta'])).toBe(true);
    expect(declaresClaim(schema, ['plan'])).toBe(true);
    expect(declaresClaim(schema, ['unsigned', 'gamma'])).toBe(false);
    expect(declaresClaim(schema, ['plan', 'x'])).toBe(false);
    expect(declaresClaim(schema, ['constructor'])).toBe(false);
  });

  it('refuses non-schemas against the draft-07 meta-schema, then the rules, naming what is wrong', () => {
    expect(() => checkAdaptiveSchema({ ...valid, required: 'plan' }, 'jsonSchema')).toThrow(/not a draft-07 JSON Schema: jsonSchema\/required/);
    expect(() => checkAdaptiveSchema({ ...valid, properties: { ...valid.properties, n: { type: 'nope', description: 'x' } } }, 'jsonSchema')).toThrow(/draft-07/);
    expect(() => checkAdaptiveSchema({ ...valid, additionalProperties: true }, 'jsonSchema')).toThrow(/rules of adaptive schemas: jsonSchema\/additionalProperties/);
    expect(() => checkAdaptiveSchema({ ...valid, properties: { ...valid.properties, 'a-b': { type: 'boolean', description: 'x' } } }, 'jsonSchema')).toThrow(AdaptiveSchemaError);
    expect(() => checkAdaptiveSchema({ ...valid, properties: { ...valid.properties, unsigned: { ...unsigned, additionalProperties: true } } }, 'jsonSchema')).toThrow(/unsigned/);
    expect(() => checkAdaptiveSchema([], 'jsonSchema')).toThrow(/must be an object/);
  });
});
