/** What presenters need besides the rows: where the API lives, to build `urls`. */
export interface PresentContext {
  /** e.g. `http://localhost:8080`, without a trailing slash. */
  publicUrl: string;
}

export function apiUrl(context: PresentContext, path: string): string {
  return `${context.publicUrl}/v1${path}`;
}

export function appUrl(context: PresentContext, path: string): string {
  return `${context.publicUrl}${path}`;
}
