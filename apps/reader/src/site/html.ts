/** Text for HTML content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
}

/** An address from published customizations, kept only when http(s) (never javascript: or data:). */
export function safeUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value, 'http://relative.invalid');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** A CSS colour from customizations, kept only in forms that cannot leave the declaration. */
export function safeColor(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return /^(#[0-9a-f]{3,8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|[a-z]{3,30})$/i.test(value.trim()) ? value.trim() : undefined;
}
