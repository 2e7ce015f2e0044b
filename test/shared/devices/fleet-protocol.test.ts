import { describe, expect, it } from 'vitest';
import {
  readCommand,
  readRevokedCertificates,
  revokeCertificatesCommand,
} from '../../../shared/devices/fleet-protocol.ts';

const certificate = (overrides: Record<string, unknown> = {}) => ({
  serial: '4f1c0a9e2b7d3c11',
  revoked_at: '2026-06-10T19:00:00.000Z',
  reason: 'key_compromise',
  not_after: '2026-09-08T19:00:00.000Z',
  ...overrides,
});

describe('revoke_certificates on the fleet link', () => {
  it('is a command whose deadline is when its last certificate runs out', () => {
    const issuedAt = new Date('2026-06-10T19:00:01.000Z');
    const command = revokeCertificatesCommand('cmd-1', issuedAt, [
      certificate({ not_after: '2026-09-08T19:00:00.000Z' }),
      certificate({ serial: 'a1', not_after: '2026-12-01T00:00:00.000Z' }),
      certificate({ serial: 'b2', not_after: '2026-07-01T00:00:00.000Z' }),
    ]);
    expect(command).toMatchObject({
      id: 'cmd-1',
      kind: 'revoke_certificates',
      issued_at: '2026-06-10T19:00:01.000Z',
      expires_at: '2026-12-01T00:00:00.000Z',
    });
    const read = readCommand(JSON.stringify(command));
    expect(read).toEqual(command);
    expect(readRevokedCertificates(read!.payload)?.map((c) => c.serial)).toEqual([
      '4f1c0a9e2b7d3c11',
      'a1',
      'b2',
    ]);
  });

  it('reads only a list of certificates with hex serials and times', () => {
    expect(readRevokedCertificates({ certificates: [certificate()] })).toEqual([certificate()]);
    const refused: Array<[string, Record<string, unknown>]> = [
      ['no list', {}],
      ['an empty list', { certificates: [] }],
      ['a serial that is not hex', { certificates: [certificate({ serial: '../etc' })] }],
      ['a serial too long', { certificates: [certificate({ serial: 'a'.repeat(65) })] }],
      ['no expiry', { certificates: [{ ...certificate(), not_after: undefined }] }],
      ['an expiry that is no time', { certificates: [certificate({ not_after: 'soon' })] }],
      ['no reason', { certificates: [certificate({ reason: '' })] }],
      ['a list that is not one', { certificates: 'abc' }],
    ];
    for (const [what, payload] of refused) expect(readRevokedCertificates(payload), what).toBeUndefined();
  });

  it('is a kind an appliance reads, where an unknown kind is not', () => {
    const command = {
      id: 'cmd-2',
      payload: { certificates: [certificate()] },
      issued_at: '2026-06-10T19:00:00.000Z',
      expires_at: '2026-09-08T19:00:00.000Z',
    };
    expect(readCommand(JSON.stringify({ ...command, kind: 'revoke_certificates' }))).toBeDefined();
    expect(readCommand(JSON.stringify({ ...command, kind: 'revoke_everything' }))).toBeUndefined();
  });
});
