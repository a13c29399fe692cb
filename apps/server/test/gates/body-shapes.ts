import type { OpenApiDocument, OperationInfo } from '../../src/http/openapi/contract.js';
import { resolve, validValue, type Schema } from './contract-walk.js';

/*
 * Bodies of a whole shape rather than of one bad field, sent by the bad-input gate to every operation with an
 * object body: an empty object, an object of unknown fields only, and each optional field alone (beside the
 * required ones, with a value its schema accepts). None may answer 5xx. A `PATCH` is an update of the given
 * fields only, so the first two change nothing: they answer 200 or 204 (a 400 only where the contract
 * requires a field: `required`, `minProperties`) and leave the resource as it was, `updatedAt` and the
 * revision included, which the gate checks with a GET before and after.
 */

export interface BodyShape {
  label: string;
  body: unknown;
  /** Accepted, it must change nothing (the GET of the resource answers the same before and after). */
  changesNothing?: boolean;
  /** The statuses it may answer; any other one is a failure. Undefined: anything below 500. */
  statuses?: number[];
}

/** Whether the contract requires a field in the body (so that an empty or field-less one may answer 400). */
export function requiresAField(schema: Schema): boolean {
  return ((schema.required as string[] | undefined)?.length ?? 0) > 0 || (typeof schema.minProperties === 'number' && schema.minProperties > 0);
}

export function bodyShapes(contract: OpenApiDocument, operation: OperationInfo, bodySchema: Schema | undefined, validBody: unknown): BodyShape[] {
  if (!bodySchema || !bodySchema.properties || typeof validBody !== 'object' || validBody === null || Array.isArray(validBody)) return [];
  const isUpdate = operation.method === 'patch';
  const updateStatuses = requiresAField(bodySchema) ? [200, 204, 400] : [200, 204];
  const shapes: BodyShape[] = [
    { label: 'empty object', body: {}, ...(isUpdate ? { changesNothing: true, statuses: updateStatuses } : {}) },
    // Refused where the schema closes the object (`additionalProperties: false`), else ignored.
    { label: 'only unknown fields', body: { zzUnknownField: 1, zzOtherUnknown: 'x' }, ...(isUpdate ? { changesNothing: true, statuses: [...new Set([...updateStatuses, 400])] } : {}) },
  ];
  const required = new Set((bodySchema.required as string[] | undefined) ?? []);
  const requiredPart = Object.fromEntries(Object.entries(validBody).filter(([name]) => required.has(name)));
  for (const [name, schema] of Object.entries(bodySchema.properties as Record<string, unknown>)) {
    if (required.has(name) || resolve(contract, schema).readOnly === true) continue;
    shapes.push({ label: `only the optional body.${name}`, body: { ...requiredPart, [name]: validValue(contract, schema) } });
  }
  return shapes;
}
