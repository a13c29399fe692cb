/*
 * The phrases of the labelled support conversations (conversation-corpus.ts): sixteen problems that users
 * of a documentation platform write to support about, each told in several ways in English, French, German
 * and Spanish, written by hand, with the openers, closers and support replies that surround them. Some
 * problems are near each other on purpose (a failed SSO login and a password reset, a double charge and a
 * cancellation), as in real queues.
 */

export type CorpusLanguage = 'en' | 'fr' | 'de' | 'es';

export interface Problem {
  label: string;
  /** Subjects a customer gives such a conversation. */
  subjects: Record<CorpusLanguage, string[]>;
  /** Ways a customer tells the problem (each one to three sentences). */
  tellings: Record<CorpusLanguage, string[]>;
  /** Details a customer adds in a later message. */
  followUps: Record<CorpusLanguage, string[]>;
}

export const PROBLEMS: Problem[] = [
  {
    label: 'sso-login',
    subjects: { en: ['SSO login broken', 'Cannot sign in with SAML'], fr: ['Connexion SSO impossible'], de: ['SSO-Anmeldung funktioniert nicht'], es: ['No puedo iniciar sesión con SSO'] },
    tellings: {
      en: [
        'Our team cannot log in with SSO since this morning. After the Okta redirect we land on an error page saying the SAML response is invalid.',
        'SAML single sign-on stopped working for everyone in our organization. The identity provider accepts the login but the redirect back fails with error 500.',
        'When I click "Sign in with SSO" I get sent to our Azure AD login, then back to a blank page and I am not logged in.',
        'We rotated the certificate of our SAML provider yesterday and now no one can sign in through SSO.',
      ],
      fr: [
        "Depuis ce matin, personne dans l'équipe ne peut se connecter avec le SSO. Après la redirection vers Okta, nous obtenons une erreur indiquant que la réponse SAML est invalide.",
        "La connexion SSO SAML ne fonctionne plus pour notre organisation : le fournisseur d'identité accepte l'authentification mais le retour échoue avec une erreur 500.",
      ],
      de: [
        'Seit heute Morgen kann sich niemand aus unserem Team per SSO anmelden. Nach der Weiterleitung zu Okta erscheint ein Fehler, die SAML-Antwort sei ungültig.',
        'Die SAML-Anmeldung funktioniert für unsere ganze Organisation nicht mehr. Der Identitätsanbieter akzeptiert die Anmeldung, aber die Rückleitung endet mit Fehler 500.',
      ],
      es: [
        'Desde esta mañana nadie del equipo puede iniciar sesión con SSO. Después de la redirección a Okta aparece un error que dice que la respuesta SAML no es válida.',
        'El inicio de sesión SAML dejó de funcionar para toda la organización: el proveedor de identidad acepta la autenticación pero la vuelta falla con un error 500.',
      ],
    },
    followUps: {
      en: ['The SAML certificate in our settings still shows the old expiry date.', 'It happens in Chrome and Firefox, with every account of our domain.'],
      fr: ['Le certificat SAML affiché dans les paramètres a encore l’ancienne date d’expiration.'],
      de: ['Im SAML-Zertifikat in den Einstellungen steht noch das alte Ablaufdatum.'],
      es: ['El certificado SAML en la configuración todavía muestra la fecha de vencimiento antigua.'],
    },
  },
  {
    label: 'password-reset',
    subjects: { en: ['Password reset email never arrives', 'Reset password not working'], fr: ['Réinitialisation du mot de passe'], de: ['Passwort zurücksetzen'], es: ['Restablecer contraseña'] },
    tellings: {
      en: [
        'I requested a password reset three times but the reset email never arrives, not even in spam.',
        'The "forgot password" link says an email was sent, yet nothing reaches my inbox, so I am locked out of my account.',
        'My reset password link expired before I could use it and requesting a new one does not send anything.',
        'I forgot my password and the password reset email is not coming through.',
      ],
      fr: [
        "J'ai demandé trois fois la réinitialisation de mon mot de passe mais l'e-mail de réinitialisation n'arrive jamais, même pas dans les spams.",
        "Le lien « mot de passe oublié » indique qu'un e-mail a été envoyé, mais je ne reçois rien et je n'ai plus accès à mon compte.",
      ],
      de: [
        'Ich habe dreimal ein neues Passwort angefordert, aber die E-Mail zum Zurücksetzen des Passworts kommt nie an, auch nicht im Spam.',
        'Der Link „Passwort vergessen“ meldet, dass eine E-Mail verschickt wurde, doch in meinem Postfach kommt nichts an.',
      ],
      es: [
        'Pedí restablecer mi contraseña tres veces pero el correo de restablecimiento nunca llega, ni siquiera a spam.',
        'El enlace de "olvidé mi contraseña" dice que se envió un correo, pero no recibo nada y no puedo entrar a mi cuenta.',
      ],
    },
    followUps: {
      en: ['My email address is the one of our company domain, other emails from you arrive fine.'],
      fr: ['Les autres e-mails de votre part arrivent bien à cette adresse.'],
      de: ['Andere E-Mails von euch kommen an dieser Adresse problemlos an.'],
      es: ['Otros correos de ustedes llegan bien a esta dirección.'],
    },
  },
  {
    label: 'pdf-export',
    subjects: { en: ['PDF export fails', 'Export to PDF stuck'], fr: ['Export PDF bloqué'], de: ['PDF-Export schlägt fehl'], es: ['La exportación a PDF falla'] },
    tellings: {
      en: [
        'Exporting our space to PDF never finishes: the progress bar stays at 90% and the PDF is never downloaded.',
        'When I export a page as PDF the file is empty, only the title page is there and the content is missing.',
        'The PDF export of our handbook fails with "Export failed, try again later" every time.',
        'Our exported PDF cuts off the code blocks and tables at the edge of the page.',
      ],
      fr: [
        "L'export de notre espace en PDF ne se termine jamais : la barre de progression reste bloquée et le PDF n'est jamais téléchargé.",
        "Quand j'exporte une page en PDF, le fichier est vide, il n'y a que la page de titre.",
      ],
      de: [
        'Der Export unseres Bereichs als PDF wird nie fertig: Der Fortschrittsbalken bleibt stehen und das PDF wird nie heruntergeladen.',
        'Wenn ich eine Seite als PDF exportiere, ist die Datei leer und nur die Titelseite ist vorhanden.',
      ],
      es: [
        'La exportación de nuestro espacio a PDF nunca termina: la barra de progreso se queda parada y el PDF nunca se descarga.',
        'Cuando exporto una página como PDF el archivo sale vacío, solo aparece la portada.',
      ],
    },
    followUps: {
      en: ['The space has about 300 pages with many images.', 'Smaller spaces export to PDF without any trouble.'],
      fr: ["L'espace contient environ 300 pages avec beaucoup d'images."],
      de: ['Der Bereich hat etwa 300 Seiten mit vielen Bildern.'],
      es: ['El espacio tiene unas 300 páginas con muchas imágenes.'],
    },
  },
  {
    label: 'git-sync',
    subjects: { en: ['GitHub sync not updating', 'Git sync stuck'], fr: ['Synchronisation GitHub bloquée'], de: ['GitHub-Synchronisierung hängt'], es: ['La sincronización con GitHub no funciona'] },
    tellings: {
      en: [
        'Our GitHub sync stopped updating: commits pushed to the main branch do not show up in the docs anymore.',
        'Git sync shows "sync in progress" for two days and the changes from our repository never arrive.',
        'Edits made in the editor are not exported to our GitLab repository, the last commit from the sync is a week old.',
        'After renaming the branch in GitHub the synchronization fails with a "branch not found" error.',
      ],
      fr: [
        "La synchronisation avec GitHub ne se fait plus : les commits poussés sur la branche main n'apparaissent plus dans la documentation.",
        "La synchronisation Git affiche « en cours » depuis deux jours et les changements du dépôt n'arrivent jamais.",
      ],
      de: [
        'Die GitHub-Synchronisierung aktualisiert nicht mehr: Commits auf dem main-Branch erscheinen nicht mehr in der Dokumentation.',
        'Die Git-Synchronisierung zeigt seit zwei Tagen „läuft“ an und die Änderungen aus unserem Repository kommen nie an.',
      ],
      es: [
        'La sincronización con GitHub dejó de actualizarse: los commits en la rama main ya no aparecen en la documentación.',
        'La sincronización de Git muestra "en curso" desde hace dos días y los cambios del repositorio nunca llegan.',
      ],
    },
    followUps: {
      en: ['The repository is private and the GitHub app is still installed on it.'],
      fr: ["Le dépôt est privé et l'application GitHub est toujours installée."],
      de: ['Das Repository ist privat und die GitHub-App ist noch installiert.'],
      es: ['El repositorio es privado y la aplicación de GitHub sigue instalada.'],
    },
  },
  {
    label: 'custom-domain',
    subjects: { en: ['Custom domain not working', 'SSL certificate error on our domain'], fr: ['Domaine personnalisé'], de: ['Eigene Domain funktioniert nicht'], es: ['Dominio personalizado no funciona'] },
    tellings: {
      en: [
        'We set up docs.example.com as a custom domain but the browser shows an SSL certificate error.',
        'Our custom domain still points to the old site even though the DNS CNAME record was changed two days ago.',
        'The custom domain setup says "DNS verification pending" forever although the CNAME is correct.',
        'Visitors of our custom domain get "your connection is not private" warnings.',
      ],
      fr: [
        'Nous avons configuré docs.example.com comme domaine personnalisé mais le navigateur affiche une erreur de certificat SSL.',
        "La configuration du domaine personnalisé reste sur « vérification DNS en attente » alors que l'enregistrement CNAME est correct.",
      ],
      de: [
        'Wir haben docs.example.com als eigene Domain eingerichtet, aber der Browser zeigt einen SSL-Zertifikatsfehler.',
        'Die Einrichtung der eigenen Domain bleibt bei „DNS-Prüfung ausstehend“, obwohl der CNAME-Eintrag stimmt.',
      ],
      es: [
        'Configuramos docs.example.com como dominio personalizado pero el navegador muestra un error de certificado SSL.',
        'La configuración del dominio personalizado sigue en "verificación DNS pendiente" aunque el registro CNAME es correcto.',
      ],
    },
    followUps: {
      en: ['We use Cloudflare for DNS, with the proxy turned off for this record.'],
      fr: ['Nous utilisons Cloudflare pour le DNS, sans le proxy pour cet enregistrement.'],
      de: ['Wir nutzen Cloudflare für DNS, der Proxy ist für diesen Eintrag aus.'],
      es: ['Usamos Cloudflare para el DNS, con el proxy desactivado para este registro.'],
    },
  },
  {
    label: 'double-charge',
    subjects: { en: ['Charged twice this month', 'Wrong invoice amount'], fr: ['Double facturation'], de: ['Doppelt abgebucht'], es: ['Cobro duplicado'] },
    tellings: {
      en: [
        'We were charged twice for our subscription this month, two identical payments on the company card.',
        'Our latest invoice shows 25 seats but we only have 12 members, so the amount charged is wrong.',
        'The card was billed for the annual plan although we are on the monthly plan.',
        'I see two charges from you on our credit card statement for the same invoice.',
      ],
      fr: [
        'Nous avons été facturés deux fois pour notre abonnement ce mois-ci, deux paiements identiques sur la carte de la société.',
        'Notre dernière facture compte 25 sièges alors que nous avons 12 membres, le montant prélevé est donc faux.',
      ],
      de: [
        'Uns wurde das Abonnement diesen Monat doppelt berechnet, zwei gleiche Zahlungen auf der Firmenkarte.',
        'Unsere letzte Rechnung zählt 25 Plätze, wir haben aber nur 12 Mitglieder, der abgebuchte Betrag ist also falsch.',
      ],
      es: [
        'Nos cobraron dos veces la suscripción este mes, dos pagos idénticos en la tarjeta de la empresa.',
        'Nuestra última factura cuenta 25 puestos pero solo tenemos 12 miembros, así que el importe cobrado es incorrecto.',
      ],
    },
    followUps: {
      en: ['Please refund the duplicate payment to the same card.'],
      fr: ['Merci de rembourser le paiement en double sur la même carte.'],
      de: ['Bitte erstattet die doppelte Zahlung auf dieselbe Karte.'],
      es: ['Por favor reembolsen el pago duplicado a la misma tarjeta.'],
    },
  },
  {
    label: 'invite-members',
    subjects: { en: ['Cannot invite teammates', 'Invitation emails not received'], fr: ['Invitation des membres'], de: ['Teammitglieder einladen'], es: ['No puedo invitar a mi equipo'] },
    tellings: {
      en: [
        'I invited three colleagues to our organization but they never received the invitation emails.',
        'When I try to invite a new member the invite button is greyed out even though I am an admin.',
        'My teammate accepted the invite link but she still cannot see any of our spaces.',
        'Inviting people by email fails with "you have reached the member limit" although we have free seats.',
      ],
      fr: [
        "J'ai invité trois collègues dans notre organisation mais ils n'ont jamais reçu les e-mails d'invitation.",
        "Quand j'essaie d'inviter un nouveau membre, le bouton d'invitation est grisé alors que je suis administrateur.",
      ],
      de: [
        'Ich habe drei Kollegen in unsere Organisation eingeladen, aber sie haben die Einladungs-E-Mails nie bekommen.',
        'Wenn ich ein neues Mitglied einladen will, ist der Einladen-Knopf ausgegraut, obwohl ich Admin bin.',
      ],
      es: [
        'Invité a tres compañeros a nuestra organización pero nunca recibieron los correos de invitación.',
        'Cuando intento invitar a un nuevo miembro el botón de invitar está desactivado aunque soy administrador.',
      ],
    },
    followUps: {
      en: ['They have addresses on our company domain, which is in the allowed email domains.'],
      fr: ["Leurs adresses sont sur le domaine de l'entreprise."],
      de: ['Ihre Adressen sind auf unserer Firmendomain.'],
      es: ['Sus direcciones son del dominio de la empresa.'],
    },
  },
  {
    label: 'search',
    subjects: { en: ['Search does not find pages', 'Search results missing'], fr: ['La recherche ne trouve rien'], de: ['Suche findet keine Seiten'], es: ['La búsqueda no encuentra páginas'] },
    tellings: {
      en: [
        'The search on our published docs does not find pages that clearly contain the word we search for.',
        'New pages we published last week still do not appear in the search results.',
        'Searching for an exact phrase in quotes returns no results, even for the title of a page.',
        'Search only returns results from one space and ignores the other spaces of the site.',
      ],
      fr: [
        'La recherche de notre documentation publiée ne trouve pas des pages qui contiennent pourtant le mot recherché.',
        "Les nouvelles pages publiées la semaine dernière n'apparaissent toujours pas dans les résultats de recherche.",
      ],
      de: [
        'Die Suche in unserer veröffentlichten Dokumentation findet Seiten nicht, die das gesuchte Wort eindeutig enthalten.',
        'Neue Seiten, die wir letzte Woche veröffentlicht haben, erscheinen immer noch nicht in den Suchergebnissen.',
      ],
      es: [
        'La búsqueda de nuestra documentación publicada no encuentra páginas que claramente contienen la palabra buscada.',
        'Las páginas nuevas que publicamos la semana pasada todavía no aparecen en los resultados de búsqueda.',
      ],
    },
    followUps: {
      en: ['For example searching "webhook" gives nothing although we have a page titled Webhooks.'],
      fr: ["Par exemple chercher « webhook » ne donne rien alors qu'une page s'appelle Webhooks."],
      de: ['Zum Beispiel liefert die Suche nach „Webhook“ nichts, obwohl es eine Seite Webhooks gibt.'],
      es: ['Por ejemplo buscar "webhook" no da nada aunque tenemos una página llamada Webhooks.'],
    },
  },
  {
    label: 'image-upload',
    subjects: { en: ['Images fail to upload', 'Cannot upload screenshots'], fr: ["Échec de l'envoi d'images"], de: ['Bilder lassen sich nicht hochladen'], es: ['No se pueden subir imágenes'] },
    tellings: {
      en: [
        'Uploading images to a page fails: the image placeholder spins and then shows "upload failed".',
        'I cannot upload screenshots anymore, PNG files over 2 MB are rejected without any message.',
        'Images we uploaded yesterday now show as broken image icons on the published site.',
        'Drag and drop of an image into the editor does nothing, and the upload button gives an error.',
      ],
      fr: [
        "L'envoi d'images sur une page échoue : l'image tourne puis affiche « échec du téléversement ».",
        "Je ne peux plus téléverser de captures d'écran, les fichiers PNG de plus de 2 Mo sont refusés sans message.",
      ],
      de: [
        'Das Hochladen von Bildern auf eine Seite schlägt fehl: Der Platzhalter dreht sich und zeigt dann „Hochladen fehlgeschlagen“.',
        'Ich kann keine Screenshots mehr hochladen, PNG-Dateien über 2 MB werden ohne Meldung abgelehnt.',
      ],
      es: [
        'Subir imágenes a una página falla: la imagen se queda cargando y luego muestra "error al subir".',
        'Ya no puedo subir capturas de pantalla, los archivos PNG de más de 2 MB se rechazan sin ningún mensaje.',
      ],
    },
    followUps: {
      en: ['Smaller JPEG images upload fine.'],
      fr: ['Les petites images JPEG passent sans problème.'],
      de: ['Kleinere JPEG-Bilder lassen sich problemlos hochladen.'],
      es: ['Las imágenes JPEG pequeñas se suben sin problema.'],
    },
  },
  {
    label: 'slow-editor',
    subjects: { en: ['Editor extremely slow', 'Lag when typing'], fr: ["L'éditeur est très lent"], de: ['Editor sehr langsam'], es: ['El editor va muy lento'] },
    tellings: {
      en: [
        'The editor is extremely slow on our long pages: every keystroke takes a second to appear.',
        'Typing lags badly in the editor and the page freezes for several seconds when I paste text.',
        'Opening a page with many tables takes over a minute to load in the editor.',
        'Since the last update the editor is sluggish and scrolling through a long page stutters.',
      ],
      fr: [
        "L'éditeur est extrêmement lent sur nos longues pages : chaque frappe met une seconde à s'afficher.",
        "La saisie rame dans l'éditeur et la page se fige plusieurs secondes quand je colle du texte.",
      ],
      de: [
        'Der Editor ist auf unseren langen Seiten extrem langsam: Jeder Tastendruck braucht eine Sekunde.',
        'Das Tippen im Editor ruckelt stark und die Seite friert beim Einfügen von Text mehrere Sekunden ein.',
      ],
      es: [
        'El editor es muy lento en nuestras páginas largas: cada pulsación tarda un segundo en aparecer.',
        'Escribir en el editor va con mucho retraso y la página se congela varios segundos al pegar texto.',
      ],
    },
    followUps: {
      en: ['The page has about 40 tables and 200 code blocks.'],
      fr: ['La page contient une quarantaine de tableaux.'],
      de: ['Die Seite hat etwa 40 Tabellen.'],
      es: ['La página tiene unas 40 tablas.'],
    },
  },
  {
    label: 'api-token',
    subjects: { en: ['API returns 401', 'API token rejected'], fr: ["Jeton d'API refusé"], de: ['API-Token wird abgelehnt'], es: ['La API devuelve 401'] },
    tellings: {
      en: [
        'Every call to the REST API returns 401 Unauthorized although I pass a freshly created API token.',
        'Our CI script that publishes docs through the API started failing with "invalid token" today.',
        'The API token I generated in the developer settings is rejected with a 401 error.',
        'Requests to the API with the bearer token work with curl but fail from our Node script with 401.',
      ],
      fr: [
        "Chaque appel à l'API REST renvoie 401 Unauthorized alors que j'utilise un jeton d'API tout juste créé.",
        "Notre script CI qui publie la documentation via l'API échoue depuis aujourd'hui avec « jeton invalide ».",
      ],
      de: [
        'Jeder Aufruf der REST-API liefert 401 Unauthorized, obwohl ich ein frisch erstelltes API-Token verwende.',
        'Unser CI-Skript, das die Dokumentation über die API veröffentlicht, scheitert seit heute mit „ungültiges Token“.',
      ],
      es: [
        'Cada llamada a la API REST devuelve 401 Unauthorized aunque uso un token de API recién creado.',
        'Nuestro script de CI que publica la documentación por la API empezó a fallar hoy con "token inválido".',
      ],
    },
    followUps: {
      en: ['We send it as "Authorization: Bearer" followed by the token.'],
      fr: ["Nous l'envoyons dans l'en-tête Authorization avec Bearer."],
      de: ['Wir senden es im Authorization-Header mit Bearer.'],
      es: ['Lo enviamos en la cabecera Authorization con Bearer.'],
    },
  },
  {
    label: 'merge-conflict',
    subjects: { en: ['Cannot merge change request', 'Merge conflicts'], fr: ['Impossible de fusionner la demande de modification'], de: ['Änderungsanfrage lässt sich nicht zusammenführen'], es: ['No puedo fusionar la solicitud de cambio'] },
    tellings: {
      en: [
        'I cannot merge my change request: the merge button says there are conflicts but I do not see any.',
        'Merging a change request fails and tells me to update it first, but updating does not resolve the conflict.',
        'After merging two change requests that edited the same page, half of my edits disappeared.',
        'The change request is approved but merge is blocked with "conflicts must be resolved".',
      ],
      fr: [
        'Je ne peux pas fusionner ma demande de modification : le bouton indique des conflits mais je n’en vois aucun.',
        'La fusion de la demande de modification échoue et me demande de la mettre à jour, mais la mise à jour ne résout pas le conflit.',
      ],
      de: [
        'Ich kann meine Änderungsanfrage nicht zusammenführen: Der Knopf meldet Konflikte, aber ich sehe keine.',
        'Das Zusammenführen der Änderungsanfrage schlägt fehl und verlangt eine Aktualisierung, die den Konflikt aber nicht löst.',
      ],
      es: [
        'No puedo fusionar mi solicitud de cambio: el botón dice que hay conflictos pero no veo ninguno.',
        'Fusionar la solicitud de cambio falla y me pide actualizarla, pero actualizar no resuelve el conflicto.',
      ],
    },
    followUps: {
      en: ['Two of us edited the same page in separate change requests.'],
      fr: ['Nous étions deux à modifier la même page.'],
      de: ['Wir haben zu zweit dieselbe Seite bearbeitet.'],
      es: ['Dos personas editamos la misma página.'],
    },
  },
  {
    label: 'openapi-spec',
    subjects: { en: ['OpenAPI spec not rendering', 'OpenAPI import fails'], fr: ['Spécification OpenAPI'], de: ['OpenAPI-Spezifikation wird nicht angezeigt'], es: ['La especificación OpenAPI no se muestra'] },
    tellings: {
      en: [
        'Our OpenAPI specification does not render: the API reference block stays empty after the upload.',
        'Importing our OpenAPI spec from a URL fails with a parse error although the YAML validates fine.',
        'The OpenAPI reference shows the old version of our spec even after we uploaded the new file.',
        'Endpoints with a oneOf schema are missing from the rendered OpenAPI reference.',
      ],
      fr: [
        "Notre spécification OpenAPI ne s'affiche pas : le bloc de référence de l'API reste vide après l'envoi.",
        "L'import de notre spécification OpenAPI depuis une URL échoue avec une erreur d'analyse alors que le YAML est valide.",
      ],
      de: [
        'Unsere OpenAPI-Spezifikation wird nicht angezeigt: Der API-Referenzblock bleibt nach dem Hochladen leer.',
        'Der Import unserer OpenAPI-Spezifikation von einer URL scheitert mit einem Parserfehler, obwohl das YAML gültig ist.',
      ],
      es: [
        'Nuestra especificación OpenAPI no se muestra: el bloque de referencia de la API queda vacío después de subirla.',
        'Importar nuestra especificación OpenAPI desde una URL falla con un error de análisis aunque el YAML es válido.',
      ],
    },
    followUps: {
      en: ['The spec is OpenAPI 3.1 with about 120 operations.'],
      fr: ['La spécification est en OpenAPI 3.1.'],
      de: ['Die Spezifikation ist OpenAPI 3.1.'],
      es: ['La especificación es OpenAPI 3.1.'],
    },
  },
  {
    label: 'restore-space',
    subjects: { en: ['Accidentally deleted a space', 'Restore deleted space'], fr: ['Espace supprimé par erreur'], de: ['Bereich versehentlich gelöscht'], es: ['Borré un espacio por error'] },
    tellings: {
      en: [
        'I accidentally deleted one of our spaces yesterday. Is there a way to restore the deleted space?',
        'A colleague deleted our onboarding space by mistake and we need it back with its history.',
        'We deleted a space last week and now realise it held pages we need; can it be recovered?',
        'The trash does not show the space I deleted this morning, how can I restore it?',
      ],
      fr: [
        "J'ai supprimé par erreur un de nos espaces hier. Est-il possible de restaurer l'espace supprimé ?",
        'Un collègue a supprimé notre espace d’intégration par erreur et nous devons le récupérer avec son historique.',
      ],
      de: [
        'Ich habe gestern versehentlich einen unserer Bereiche gelöscht. Kann man den gelöschten Bereich wiederherstellen?',
        'Ein Kollege hat unseren Onboarding-Bereich aus Versehen gelöscht und wir brauchen ihn mit seinem Verlauf zurück.',
      ],
      es: [
        'Ayer borré por error uno de nuestros espacios. ¿Hay forma de restaurar el espacio eliminado?',
        'Un compañero eliminó por error nuestro espacio de bienvenida y lo necesitamos de vuelta con su historial.',
      ],
    },
    followUps: {
      en: ['It was called "Engineering onboarding".'],
      fr: ['Il s’appelait « Onboarding ingénierie ».'],
      de: ['Er hieß „Engineering Onboarding“.'],
      es: ['Se llamaba "Onboarding de ingeniería".'],
    },
  },
  {
    label: 'translation',
    subjects: { en: ['Translations out of date', 'Translated content wrong'], fr: ['Traductions pas à jour'], de: ['Übersetzungen veraltet'], es: ['Traducciones desactualizadas'] },
    tellings: {
      en: [
        'The French translation of our docs is out of date: changes to the English pages are not translated.',
        'Automatic translation ignores our glossary and translates our product name into other languages.',
        'The language switcher on our site shows German but the pages stay in English.',
        'Our glossary terms are not used when the content is translated to Japanese.',
      ],
      fr: [
        "La traduction française de notre documentation n'est pas à jour : les modifications des pages anglaises ne sont pas traduites.",
        'La traduction automatique ignore notre glossaire et traduit le nom de notre produit.',
      ],
      de: [
        'Die deutsche Übersetzung unserer Dokumentation ist veraltet: Änderungen an den englischen Seiten werden nicht übersetzt.',
        'Die automatische Übersetzung ignoriert unser Glossar und übersetzt unseren Produktnamen.',
      ],
      es: [
        'La traducción al español de nuestra documentación está desactualizada: los cambios en las páginas en inglés no se traducen.',
        'La traducción automática ignora nuestro glosario y traduce el nombre de nuestro producto.',
      ],
    },
    followUps: {
      en: ['The glossary entry for our product name has the same term in every language.'],
      fr: ['Le glossaire contient bien le nom du produit dans chaque langue.'],
      de: ['Im Glossar steht der Produktname in jeder Sprache gleich.'],
      es: ['El glosario tiene el nombre del producto igual en cada idioma.'],
    },
  },
  {
    label: 'cancel-plan',
    subjects: { en: ['Cancel our subscription', 'Downgrade plan'], fr: ["Résilier l'abonnement"], de: ['Abonnement kündigen'], es: ['Cancelar la suscripción'] },
    tellings: {
      en: [
        'We would like to cancel our subscription at the end of the current billing period. How do we do that?',
        'How can I downgrade our organization from the Pro plan to the free plan without losing content?',
        'I cannot find where to cancel the plan in the billing settings, there is no cancel button.',
        'Our project ended and we want to stop the subscription renewal before next month.',
      ],
      fr: [
        'Nous souhaitons résilier notre abonnement à la fin de la période de facturation en cours. Comment faire ?',
        "Comment passer notre organisation de l'offre Pro à l'offre gratuite sans perdre de contenu ?",
      ],
      de: [
        'Wir möchten unser Abonnement zum Ende des aktuellen Abrechnungszeitraums kündigen. Wie geht das?',
        'Wie kann ich unsere Organisation vom Pro-Plan auf den kostenlosen Plan herabstufen, ohne Inhalte zu verlieren?',
      ],
      es: [
        'Queremos cancelar nuestra suscripción al final del periodo de facturación actual. ¿Cómo lo hacemos?',
        '¿Cómo puedo bajar nuestra organización del plan Pro al plan gratuito sin perder contenido?',
      ],
    },
    followUps: {
      en: ['We would keep read access to the published docs if possible.'],
      fr: ['Nous aimerions garder la documentation publiée en lecture.'],
      de: ['Die veröffentlichte Dokumentation möchten wir gern lesbar behalten.'],
      es: ['Nos gustaría mantener la documentación publicada en lectura.'],
    },
  },
];

export const OPENERS: Record<CorpusLanguage, string[]> = {
  en: ['Hi there,', 'Hello team,', 'Hi,', 'Good morning,', 'Hey support!', ''],
  fr: ['Bonjour,', 'Bonjour à tous,', 'Salut,', ''],
  de: ['Hallo,', 'Guten Tag,', 'Hallo zusammen,', ''],
  es: ['Hola,', 'Buenos días,', 'Hola equipo,', ''],
};

export const CLOSERS: Record<CorpusLanguage, string[]> = {
  en: ['Thanks in advance!', 'Thanks, Sam', 'Any help appreciated.', 'Best regards, Alex', ''],
  fr: ['Merci d’avance !', 'Cordialement, Claire', 'Merci pour votre aide.', ''],
  de: ['Danke im Voraus!', 'Viele Grüße, Jonas', 'Vielen Dank für die Hilfe.', ''],
  es: ['¡Gracias de antemano!', 'Saludos, Lucía', 'Gracias por la ayuda.', ''],
};

/** What the customer says to the support agent's questions, besides the details of the problem. */
export const ACKNOWLEDGEMENTS: Record<CorpusLanguage, string[]> = {
  en: ['Sure, here you go.', 'Yes, that is right.', 'Ok, thanks for looking into it.'],
  fr: ['Bien sûr, voici.', 'Oui, c’est bien ça.', 'D’accord, merci de regarder.'],
  de: ['Klar, hier bitte.', 'Ja, genau.', 'Okay, danke fürs Nachsehen.'],
  es: ['Claro, aquí está.', 'Sí, así es.', 'Vale, gracias por revisarlo.'],
};

export const AGENT_REPLIES: Record<CorpusLanguage, string[]> = {
  en: ['Thanks for reaching out! Could you share a screenshot and the URL of the page?', 'Sorry about that. I have passed this to our engineers and will get back to you.', 'Could you tell me which browser you are using?'],
  fr: ['Merci pour votre message ! Pouvez-vous nous envoyer une capture d’écran et l’URL de la page ?', 'Désolé pour ce souci, je transmets à nos ingénieurs.'],
  de: ['Danke für die Nachricht! Kannst du uns einen Screenshot und die URL der Seite schicken?', 'Das tut uns leid, ich gebe es an unser Entwicklerteam weiter.'],
  es: ['¡Gracias por escribirnos! ¿Puedes enviarnos una captura de pantalla y la URL de la página?', 'Lo sentimos, lo paso a nuestro equipo técnico.'],
};

/** How a customer turns to a second problem in the same conversation. */
export const TURNS: Record<CorpusLanguage, string[]> = {
  en: ['Also, ', 'Another thing: ', 'Separately, ', 'By the way, '],
  fr: ['Par ailleurs, ', 'Autre chose : ', 'Aussi, '],
  de: ['Außerdem: ', 'Übrigens: ', 'Noch etwas: '],
  es: ['Además, ', 'Otra cosa: ', 'Por cierto, '],
};
