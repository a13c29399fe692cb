/*
 * pdfkit's standard fonts (Helvetica, Courier) encode text as WinAnsi (Windows-1252) bytes. A character
 * outside it is not refused: pdfkit writes its UTF-16 code unit as if it were a byte and the page shows
 * garbage (or the hex string of the content stream is corrupted by codes below 0x10). So every string is
 * brought into WinAnsi first: kept when it is there, spelled with WinAnsi characters when a reasonable
 * spelling exists (accents dropped, arrows as `->`), else replaced by `?`.
 */

/** The characters of Windows-1252's 0x80-0x9F range, which are not at their Unicode positions. */
const WIN_ANSI_HIGH = new Set([
  0x20ac, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x017d,
  0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x017e, 0x0178,
]);

const SPELLINGS: Record<string, string> = {
  '\u2190': '<-',
  '\u2192': '->',
  '\u2194': '<->',
  '\u21d0': '<=',
  '\u21d2': '=>',
  '\u21d4': '<=>',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2260': '!=',
  '\u2248': '~',
  '\u2212': '-',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2015': '-',
  '\u2043': '-',
  '\u2032': "'",
  '\u2033': '"',
  '\u2713': 'v',
  '\u2714': 'v',
  '\u2705': 'v',
  '\u2717': 'x',
  '\u2718': 'x',
  '\u274c': 'x',
  '\u25cf': '\u2022',
  '\u25e6': '\u2022',
  '\u2023': '\u2022',
  '\u0131': 'i',
  '\u0141': 'L',
  '\u0142': 'l',
  '\u0110': 'D',
  '\u0111': 'd',
  '\u2028': '\n',
  '\u2029': '\n',
  '\u3000': ' ',
};

export function isWinAnsi(codePoint: number): boolean {
  return (codePoint >= 0x20 && codePoint <= 0x7e) || (codePoint >= 0xa0 && codePoint <= 0xff) || WIN_ANSI_HIGH.has(codePoint);
}

/** The text with only WinAnsi characters and newlines; tabs become four spaces. */
export function toWinAnsi(text: string): string {
  let out = '';
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if (isWinAnsi(codePoint)) {
      out += char;
      continue;
    }
    if (char === '\n') {
      out += '\n';
      continue;
    }
    if (char === '\t') {
      out += '    ';
      continue;
    }
    if (char === '\r') continue;
    const spelled = SPELLINGS[char];
    if (spelled !== undefined) {
      out += spelled;
      continue;
    }
    // Control and format characters (zero-width spaces, joiners, direction marks) have nothing to show.
    if (/^[\p{Cc}\p{Cf}\p{Mn}\p{Me}]$/u.test(char)) continue;
    if (/^\p{Zs}$/u.test(char)) {
      out += ' ';
      continue;
    }
    // Compatibility forms (ligatures, full-width letters) and accented letters outside Latin-1 (ő -> o).
    const decomposed = char.normalize('NFKD').replace(/\p{M}/gu, '');
    if (decomposed !== '' && decomposed !== char && [...decomposed].every((c) => isWinAnsi(c.codePointAt(0)!))) {
      out += decomposed;
      continue;
    }
    out += '?';
  }
  return out;
}
