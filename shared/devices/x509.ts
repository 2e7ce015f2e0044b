/**
 * @peculiar/x509, loaded the way it needs: its dependency injection (tsyringe) refuses to load
 * without the Reflect metadata API, and it signs through WebCrypto, which we take from node:crypto.
 * Import the library from here only, so both conditions hold wherever certificates are handled.
 */
import './reflect-metadata.ts';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };

/** The only key type the device plane issues to and accepts from: ECDSA on P-256 with SHA-256. */
export const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
