import { webcrypto } from 'node:crypto';
import type { Db } from '../db/index.js';
import { findSamlProviderById, setSamlSpSigningKey, type SamlProviderRow } from '../stores/saml-store.js';
import { openValue, sealValue, type SealingKey } from './sealed-values.js';

/*
 * The service provider's signing key of each SAML provider: Quire signs the AuthnRequests it sends to the
 * identity provider with it (so the provider can tell them from forged ones), and publishes its self-signed
 * certificate in the provider's service-provider metadata (`/auth/saml/<providerId>`, the entity id the
 * provider's answer shows). One key per provider, made on first use, so that one organization's key never
 * signs for another; the private key is kept sealed.
 */

// @peculiar/x509 makes the certificate (node's crypto has no X.509 writer); it wants the Reflect metadata
// polyfill loaded first. Both load with the first key made, not at start-up.
async function loadX509(): Promise<typeof import('@peculiar/x509')> {
  await import('reflect-metadata');
  return import('@peculiar/x509');
}

const SEALING_KEY: SealingKey = { secretName: 'saml-sp-keys', info: 'quire saml service provider signing keys v1' };

/** The certificate is what the identity provider pins; long-lived so that sign-ins do not break on a date. */
const CERTIFICATE_YEARS = 20;

export interface SpSigningKey {
  /** PEM certificate, published in the metadata. */
  certificate: string;
  /** PKCS#8 PEM private key, given to node-saml's `privateKey`. */
  privateKey: string;
}

function pem(label: string, der: ArrayBuffer): string {
  return `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

async function makeKey(providerId: string): Promise<SpSigningKey> {
  const { X509CertificateGenerator, cryptoProvider } = await loadX509();
  cryptoProvider.set(webcrypto as unknown as Crypto);
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const now = new Date();
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '7'),
    // Provider ids are letters and digits only, safe in a distinguished name.
    name: `CN=Quire SAML service provider ${providerId}`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(Date.UTC(now.getUTCFullYear() + CERTIFICATE_YEARS, now.getUTCMonth(), now.getUTCDate())),
    signingAlgorithm: algorithm,
    keys,
  });
  return { certificate: certificate.toString('pem'), privateKey: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

/**
 * The provider's signing key, made and stored (sealed) the first time it is needed. `db` is the root
 * database, not a transaction: sealing reads a server secret that may be made in its own transaction.
 */
export async function samlSpSigningKey(db: Db, provider: SamlProviderRow): Promise<SpSigningKey> {
  let row = provider;
  if (row.sp_certificate === null || row.sp_private_key === null) {
    const made = await makeKey(row.id);
    await setSamlSpSigningKey(db, row.id, made.certificate, await sealValue(db, SEALING_KEY, made.privateKey, row.id));
    row = (await findSamlProviderById(db, row.id)) ?? row;
    if (row.sp_certificate === null || row.sp_private_key === null) return made;
  }
  return { certificate: row.sp_certificate, privateKey: await openValue(db, SEALING_KEY, row.sp_private_key, row.id) };
}
