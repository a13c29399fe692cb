/** The icon of a cluster whose words match no icon's (a Font Awesome name). Apart from icons.ts so that the server loads no stemmer to name it. */
export const DEFAULT_ICON = 'circle-question';
