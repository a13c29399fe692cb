/**
 * Sortable position keys for siblings (collections and spaces under the same parent). A key between two
 * neighbours can always be made without renumbering anything, so placing or moving an item writes one row.
 *
 * Fractional indexing: a key is an integer part whose first character encodes its length (`a`..`z` for
 * 2..27 characters, upper case for the negative side) followed by an optional fraction; every character is
 * a base-62 digit in ASCII order. Appending or prepending increments or decrements the integer part, so a
 * long run of appends keeps keys short (a thousand appends stay at three characters); a fraction grows only
 * when items are squeezed repeatedly between the same two neighbours. Keys compare byte by byte (ASCII), as
 * JavaScript strings and the `position` columns (collation "C" on PostgreSQL) do.
 */
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ZERO = DIGITS[0]!;
const LAST = DIGITS[DIGITS.length - 1]!;
/** The smallest integer part; nothing can be made before a key that starts with it and has no fraction. */
const SMALLEST_INTEGER = `A${ZERO.repeat(26)}`;

export class PositionKeyError extends Error {
  override readonly name = 'PositionKeyError';
}

function integerLength(head: string): number {
  if (head >= 'a' && head <= 'z') return head.charCodeAt(0) - 'a'.charCodeAt(0) + 2;
  if (head >= 'A' && head <= 'Z') return 'Z'.charCodeAt(0) - head.charCodeAt(0) + 2;
  throw new PositionKeyError(`invalid position key head "${head}"`);
}

function integerPart(key: string): string {
  const length = integerLength(key[0] ?? '');
  if (length > key.length) throw new PositionKeyError(`invalid position key "${key}"`);
  return key.slice(0, length);
}

export function isValidPositionKey(key: string): boolean {
  try {
    if (key === SMALLEST_INTEGER) return false;
    const integer = integerPart(key);
    const fraction = key.slice(integer.length);
    if ([...key.slice(1)].some((char) => !DIGITS.includes(char))) return false;
    return !fraction.endsWith(ZERO);
  } catch {
    return false;
  }
}

function assertValid(key: string): void {
  if (!isValidPositionKey(key)) throw new PositionKeyError(`invalid position key "${key}"`);
}

/** A fraction strictly between `a` and `b` (`b` null means "no upper bound"); neither ends with a zero digit. */
function midpoint(a: string, b: string | null): string {
  if (b !== null && a >= b) throw new PositionKeyError(`${a} >= ${b}`);
  if (b !== null) {
    // A common prefix (a padded with zeros) is kept as is; the midpoint is made after it.
    let n = 0;
    while ((a[n] ?? ZERO) === b[n]) n++;
    if (n > 0) return b.slice(0, n) + midpoint(a.slice(n), b.slice(n));
  }
  const digitA = a ? DIGITS.indexOf(a[0]!) : 0;
  const digitB = b !== null ? DIGITS.indexOf(b[0]!) : DIGITS.length;
  if (digitB - digitA > 1) return DIGITS[Math.round((digitA + digitB) / 2)]!;
  // Consecutive digits: b's first digit alone is already above a (when b has more after it), otherwise go
  // one digit deeper after a's first digit.
  if (b !== null && b.length > 1) return b.slice(0, 1);
  return DIGITS[digitA]! + midpoint(a.slice(1), null);
}

function incrementInteger(integer: string): string | null {
  const [head, ...digits] = integer.split('') as [string, ...string[]];
  let carry = true;
  for (let index = digits.length - 1; carry && index >= 0; index--) {
    const next = DIGITS.indexOf(digits[index]!) + 1;
    if (next === DIGITS.length) digits[index] = ZERO;
    else {
      digits[index] = DIGITS[next]!;
      carry = false;
    }
  }
  if (!carry) return head + digits.join('');
  if (head === 'Z') return `a${ZERO}`;
  if (head === 'z') return null;
  const nextHead = String.fromCharCode(head.charCodeAt(0) + 1);
  if (nextHead > 'a') digits.push(ZERO);
  else digits.pop();
  return nextHead + digits.join('');
}

function decrementInteger(integer: string): string | null {
  const [head, ...digits] = integer.split('') as [string, ...string[]];
  let borrow = true;
  for (let index = digits.length - 1; borrow && index >= 0; index--) {
    const next = DIGITS.indexOf(digits[index]!) - 1;
    if (next === -1) digits[index] = LAST;
    else {
      digits[index] = DIGITS[next]!;
      borrow = false;
    }
  }
  if (!borrow) return head + digits.join('');
  if (head === 'a') return `Z${LAST}`;
  if (head === 'A') return null;
  const nextHead = String.fromCharCode(head.charCodeAt(0) - 1);
  if (nextHead < 'Z') digits.push(LAST);
  else digits.pop();
  return nextHead + digits.join('');
}

/**
 * A key strictly between `before` and `after` (null means the start or the end of the list). Throws when
 * `before` is not strictly less than `after`: two siblings never share a key because every key is made
 * between its neighbours inside the transaction that holds the organization's structure lock.
 */
export function positionBetween(before: string | null, after: string | null): string {
  if (before !== null) assertValid(before);
  if (after !== null) assertValid(after);
  if (before !== null && after !== null && before >= after) throw new PositionKeyError(`${before} >= ${after}`);
  if (before === null) {
    if (after === null) return `a${ZERO}`;
    const integer = integerPart(after);
    const fraction = after.slice(integer.length);
    if (integer === SMALLEST_INTEGER) return integer + midpoint('', fraction);
    if (integer < after) return integer;
    const decremented = decrementInteger(integer);
    if (decremented === null) throw new PositionKeyError('no position key is left before this one');
    return decremented;
  }
  if (after === null) {
    const integer = integerPart(before);
    const fraction = before.slice(integer.length);
    const incremented = incrementInteger(integer);
    return incremented === null ? integer + midpoint(fraction, null) : incremented;
  }
  const integerBefore = integerPart(before);
  const fractionBefore = before.slice(integerBefore.length);
  const integerAfter = integerPart(after);
  const fractionAfter = after.slice(integerAfter.length);
  if (integerBefore === integerAfter) return integerBefore + midpoint(fractionBefore, fractionAfter);
  const incremented = incrementInteger(integerBefore);
  if (incremented === null) throw new PositionKeyError('no position key is left after this one');
  if (incremented < after) return incremented;
  return integerBefore + midpoint(fractionBefore, null);
}
