import { declaresClaim, type AdaptiveJsonSchema } from '../content/site-adaptive-schema.js';
import { conditionClaims, ConditionError, parseCondition } from '../content/site-conditions.js';
import { BadRequestError } from '../errors.js';
import type { SiteWithCount } from '../stores/site-store.js';

/*
 * What site requests write beyond their schema: the conditions of site spaces, sections and customizations
 * (content/site-conditions.ts), and the path segments of the published addresses. Each refusal is a 400
 * naming the field.
 */

/** Checks a condition with the expression parser of content/site-conditions.ts; 400 saying what is wrong. */
export function checkedCondition(condition: string | null | undefined, field: string): string | null | undefined {
  if (condition === undefined || condition === null) return condition;
  try {
    parseCondition(condition);
  } catch (error) {
    if (error instanceof ConditionError) throw new BadRequestError(`${field} is not a valid condition: ${error.message}`);
    throw error;
  }
  return condition;
}

/**
 * Once a site has an adaptive schema, its conditions may only read the claims the schema declares: a typo in
 * a claim name would otherwise hide content from every visitor without a word.
 */
export function checkConditionClaims(site: SiteWithCount, condition: string | null | undefined, field: string): void {
  if (condition === undefined || condition === null || site.adaptive_schema === null) return;
  const schema = JSON.parse(site.adaptive_schema) as AdaptiveJsonSchema;
  for (const path of conditionClaims(parseCondition(condition))) {
    if (!declaresClaim(schema, path)) throw new BadRequestError(`${field} reads visitor.claims.${path.join('.')}, which the site's adaptive schema does not declare`);
  }
}

/** A path of a site space or section is one segment of the published address. */
const PATH_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function checkPathSegment(value: string | undefined, field: string): void {
  if (value !== undefined && !PATH_SEGMENT.test(value)) {
    throw new BadRequestError(`${field} must be one path segment: letters, digits, ".", "_" and "-", starting with a letter or digit`);
  }
}
