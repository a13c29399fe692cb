import snowball from 'snowball-stemmers';

/*
 * The icon of a cluster (a Font Awesome name, as the public API's `Icon`), chosen from the words its issues
 * use most. Each icon has words in a few languages; they are stemmed like issue terms, so "passwords",
 * "Passwort" and "mot de passe" all meet the terms the analysis keeps.
 */

const ICON_WORDS: ReadonlyArray<readonly [icon: string, words: Readonly<Record<string, readonly string[]>>]> = [
  ['lock', { english: ['login', 'log', 'password', 'sso', 'saml', 'authentication', 'sign', '2fa', 'locked', 'okta'], french: ['connexion', 'connecter', 'passe', 'authentification'], german: ['anmelden', 'anmeldung', 'passwort', 'login'], spanish: ['sesión', 'contraseña', 'iniciar', 'autenticación'] }],
  ['credit-card', { english: ['billing', 'invoice', 'payment', 'charged', 'refund', 'subscription', 'plan', 'card', 'price'], french: ['facture', 'paiement', 'abonnement', 'remboursement'], german: ['rechnung', 'zahlung', 'abonnement', 'abbuchung'], spanish: ['factura', 'pago', 'suscripción', 'reembolso'] }],
  ['file-pdf', { english: ['pdf', 'export', 'print'], french: ['exporter', 'imprimer'], german: ['exportieren', 'drucken'], spanish: ['exportar', 'imprimir'] }],
  ['code-branch', { english: ['git', 'github', 'gitlab', 'sync', 'branch', 'repository', 'commit'], french: ['synchronisation', 'dépôt', 'branche'], german: ['synchronisierung', 'repository', 'zweig'], spanish: ['sincronización', 'repositorio', 'rama'] }],
  ['magnifying-glass', { english: ['search', 'find', 'results'], french: ['recherche', 'résultats'], german: ['suche', 'suchergebnisse'], spanish: ['búsqueda', 'resultados'] }],
  ['globe', { english: ['domain', 'dns', 'publish', 'site', 'custom', 'ssl', 'certificate'], french: ['domaine', 'publier', 'certificat'], german: ['domain', 'veröffentlichen', 'zertifikat'], spanish: ['dominio', 'publicar', 'certificado'] }],
  ['users', { english: ['invite', 'member', 'seat', 'team', 'permission', 'role', 'access'], french: ['inviter', 'membre', 'équipe', 'accès'], german: ['einladen', 'mitglied', 'berechtigung', 'zugriff'], spanish: ['invitar', 'miembro', 'equipo', 'permisos', 'acceso'] }],
  ['plug', { english: ['integration', 'webhook', 'api', 'token', 'slack', 'zapier'], french: ['intégration'], german: ['integration', 'schnittstelle'], spanish: ['integración'] }],
  ['image', { english: ['image', 'upload', 'picture', 'file', 'attachment'], french: ['téléverser', 'fichier', 'pièce'], german: ['bild', 'hochladen', 'datei'], spanish: ['imagen', 'subir', 'archivo'] }],
  ['gauge', { english: ['slow', 'performance', 'timeout', 'loading', 'speed'], french: ['lent', 'lenteur', 'chargement'], german: ['langsam', 'laden', 'ladezeit'], spanish: ['lento', 'carga', 'lentitud'] }],
  ['language', { english: ['translation', 'translate', 'language', 'locale'], french: ['traduction', 'langue'], german: ['übersetzung', 'sprache'], spanish: ['traducción', 'idioma'] }],
  ['bug', { english: ['error', 'crash', 'bug', 'broken', 'fails', 'blank', '500'], french: ['erreur', 'plantage', 'bogue'], german: ['fehler', 'absturz'], spanish: ['error', 'fallo'] }],
];

export { DEFAULT_ICON } from './default-icon.js';
import { DEFAULT_ICON } from './default-icon.js';

let stemmedTable: Array<{ icon: string; stems: ReadonlySet<string> }> | undefined;

function table(): Array<{ icon: string; stems: ReadonlySet<string> }> {
  stemmedTable ??= ICON_WORDS.map(([icon, byLanguage]) => {
    const stems = new Set<string>();
    for (const [language, words] of Object.entries(byLanguage)) {
      const stemmer = snowball.newStemmer(language);
      for (const word of words) stems.add(stemmer.stem(word));
    }
    return { icon, stems };
  });
  return stemmedTable;
}

/** The icon whose words weigh most among the terms (ties to the earlier icon of the table); DEFAULT_ICON when none matches. */
export function iconFor(terms: ReadonlyMap<string, number>): string {
  let best = DEFAULT_ICON;
  let bestScore = 0;
  for (const { icon, stems } of table()) {
    let score = 0;
    for (const [term, weight] of terms) if (stems.has(term)) score += weight;
    if (score > bestScore) {
      best = icon;
      bestScore = score;
    }
  }
  return best;
}
