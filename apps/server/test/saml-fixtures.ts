// @peculiar/x509 needs the Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/*
 * Identity-provider keys and certificates made in the test, so SAML tests need no network and no files.
 */

x509.cryptoProvider.set(webcrypto as never);

export interface IdpCredentials {
  /** The signing key, PKCS#8 PEM. */
  privateKey: string;
  /** The self-signed certificate, PEM. */
  certificate: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** An RSA key and a self-signed certificate valid from `notBefore` to `notAfter` (around now by default). */
export async function makeIdpCredentials(options: { notBefore?: Date; notAfter?: Date; name?: string } = {}): Promise<IdpCredentials> {
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${options.name ?? 'Test identity provider'}`,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY_MS),
    notAfter: options.notAfter ?? new Date(Date.now() + 365 * DAY_MS),
    signingAlgorithm: algorithm,
    keys: keys as never,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  return {
    privateKey: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`,
    certificate: certificate.toString('pem'),
  };
}
