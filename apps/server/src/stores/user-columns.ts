import type { UserRow } from './user-store.js';

/*
 * A row that names people (a comment's author, a review's reviewer, a change request's creator) joins
 * `users` once per person and selects each person's columns under a prefix: `author_email`,
 * `resolver_display_name`... These build that selection and read the person back from the row.
 */

/**
 * The joined user's columns other than its id, as `<prefix>_email`, `<prefix>_display_name`,
 * `<prefix>_photo_url`, `<prefix>_created_at`: for a person whose id the row has already (`c.author_id`).
 */
export function userDetailColumns<Alias extends string, Prefix extends string>(alias: Alias, prefix: Prefix) {
  return [
    `${alias}.email as ${prefix}_email`,
    `${alias}.display_name as ${prefix}_display_name`,
    `${alias}.photo_url as ${prefix}_photo_url`,
    `${alias}.created_at as ${prefix}_created_at`,
  ] as const;
}

/** The joined user's columns with its id too (`<prefix>_id`), for a person the row does not name already. */
export function userColumns<Alias extends string, Prefix extends string>(alias: Alias, prefix: Prefix) {
  return [`${alias}.id as ${prefix}_id`, ...userDetailColumns(alias, prefix)] as const;
}

/**
 * The user whose columns the row holds under `prefix` (see above); its id is `<prefix>_id` unless given
 * (a change request's creator is its `created_by`).
 */
export function userFrom(prefix: string, row: object, id?: string): UserRow {
  const columns = row as Record<string, unknown>;
  return {
    id: id ?? (columns[`${prefix}_id`] as string),
    email: columns[`${prefix}_email`] as string,
    display_name: columns[`${prefix}_display_name`] as string,
    photo_url: (columns[`${prefix}_photo_url`] as string | null) ?? null,
    created_at: columns[`${prefix}_created_at`] as string,
  };
}
