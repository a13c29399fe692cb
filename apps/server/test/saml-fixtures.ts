// @peculiar/x509 needs the Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import { randomUUID, webcrypto } from 'node:crypto';
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

export interface SamlResponseOptions {
  /** Signs the assertion with this key; its certificate goes in KeyInfo. */
  signer: IdpCredentials;
  issuer: string;
  audience: string;
  /** The ACS URL the response is meant for (Destination and Recipient). */
  acsURL: string;
  email: string;
  displayName?: string;
  assertionId?: string;
  /** When the assertion was issued; it is valid for five minutes from then. */
  issuedAt?: Date;
  inResponseTo?: string;
}

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A SAML 2.0 Response as an identity provider posts it, base64, with its assertion signed (RSA-SHA256,
 * exclusive canonicalization, enveloped signature) by `signer`.
 */
export async function signedSamlResponse(options: SamlResponseOptions): Promise<string> {
  const { SignedXml } = await import('xml-crypto');
  const issuedAt = options.issuedAt ?? new Date();
  const notOnOrAfter = new Date(issuedAt.getTime() + 5 * 60 * 1000).toISOString();
  const notBefore = new Date(issuedAt.getTime() - 60 * 1000).toISOString();
  const assertionId = options.assertionId ?? `_a${randomUUID()}`;
  const inResponseTo = options.inResponseTo ? ` InResponseTo="${xmlEscape(options.inResponseTo)}"` : '';
  const attributes = [
    `<saml:Attribute Name="email"><saml:AttributeValue>${xmlEscape(options.email)}</saml:AttributeValue></saml:Attribute>`,
    ...(options.displayName ? [`<saml:Attribute Name="displayName"><saml:AttributeValue>${xmlEscape(options.displayName)}</saml:AttributeValue></saml:Attribute>`] : []),
  ].join('');
  const assertion =
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${issuedAt.toISOString()}">` +
    `<saml:Issuer>${xmlEscape(options.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${xmlEscape(options.email)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${xmlEscape(options.acsURL)}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${xmlEscape(options.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${issuedAt.toISOString()}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` +
    `</saml:Assertion>`;
  const response =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${issuedAt.toISOString()}" Destination="${xmlEscape(options.acsURL)}"${inResponseTo}>` +
    `<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${xmlEscape(options.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    assertion +
    `</samlp:Response>`;
  const signature = new SignedXml({
    privateKey: options.signer.privateKey,
    publicCert: options.signer.certificate,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signature.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  signature.computeSignature(response, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  return Buffer.from(signature.getSignedXml()).toString('base64');
}
