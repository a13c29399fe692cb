import { BadRequestError } from '../../errors.js';

/**
 * Refuses the NUL character (U+0000) anywhere in a request's path parameters, query or JSON body (keys
 * included). PostgreSQL cannot store it in text or JSON columns ("invalid byte sequence"), so it would be a
 * 500 there and a stored oddity on SQLite; no field of the contract has a use for it. The body is walked
 * with an explicit stack, as it may be nested deeper than recursion allows.
 */
export function refuseNulCharacters(parts: { path: Record<string, unknown>; query: Record<string, unknown>; body: unknown }): void {
  const stack: Array<{ value: unknown; field: string }> = [
    ...Object.entries(parts.path).map(([name, value]) => ({ value, field: `path.${name}` })),
    ...Object.entries(parts.query).map(([name, value]) => ({ value, field: `query.${name}` })),
    { value: parts.body, field: 'body' },
  ];
  while (stack.length > 0) {
    const { value, field } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) throw new BadRequestError(`${field} must not contain the NUL character`);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, field: `${field}.${index}` }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) throw new BadRequestError(`${field} must not have a property name with the NUL character`);
        stack.push({ value: item, field: `${field}.${key}` });
      }
    }
  }
}
