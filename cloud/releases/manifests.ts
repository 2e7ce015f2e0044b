/**
 * What an appliance is sent to install a release: a manifest signed with the active update key,
 * carrying the endorsements from the first key, and an artifact URL whose token lets a plain GET
 * download it until the token expires.
 */
import { unixSeconds } from '../../shared/clock.ts';
import { type SignedUpdate, signManifest } from '../../shared/devices/update-manifest.ts';
import { type ReleaseContext, requireRelease } from './context.ts';
import { invalidDownloadToken, publicUrlUnknown, releaseRetired } from './errors.ts';
import { signToken, verifyToken } from './tokens.ts';

/** Where the artifact route is served: the routes are registered under /v1/mdm (cloud/app.ts). */
export const artifactPath = (releaseId: string) => `/v1/mdm/releases/${releaseId}/artifact`;

export interface ManifestOptions {
  /** How long the artifact URL works: long enough for a rollout's slowest store to download. */
  ttlSeconds: number;
  /** The address appliances reach the cloud by; CLOUD_PUBLIC_URL when absent. */
  baseUrl?: string | undefined;
}

export function createManifests(context: ReleaseContext, publicUrl: string | undefined) {
  return {
    /** The signed update for the tenant's release; a retired or another tenant's release is refused. */
    async signedManifest(
      tenantId: string,
      releaseId: string,
      options: ManifestOptions,
    ): Promise<SignedUpdate> {
      if (!Number.isSafeInteger(options.ttlSeconds) || options.ttlSeconds <= 0)
        throw new RangeError(`ttlSeconds must be a positive integer, got ${options.ttlSeconds}`);
      const release = await requireRelease(context, tenantId, releaseId);
      if (release.state === 'retired') throw releaseRetired();
      const base = (options.baseUrl ?? publicUrl)?.replace(/\/+$/, '');
      if (!base) throw publicUrlUnknown();
      const key = await context.keys.signingKey();
      const tokenKey = await context.keys.tokenKey(key.keyId);
      if (!tokenKey) throw new Error(`update key ${key.keyId} vanished while signing`);
      const expiresAt = unixSeconds(context.clock.now()) + options.ttlSeconds;
      const token = signToken(tokenKey, key.keyId, { tenantId, releaseId, expiresAt });
      const manifest = {
        version: release.version,
        url: `${base}${artifactPath(releaseId)}?token=${token}`,
        size: release.size,
        sha256: release.sha256,
      };
      return signManifest(manifest, key.privateKey, { key_id: key.keyId, endorsements: key.endorsements });
    },

    /** The tenant a download token grants `releaseId` of; INVALID_DOWNLOAD_TOKEN for any other token. */
    async downloadTenant(token: string, releaseId: string): Promise<string> {
      const grant = await verifyToken(token, context.keys.tokenKey, unixSeconds(context.clock.now()));
      if (!grant || grant.releaseId !== releaseId) throw invalidDownloadToken();
      return grant.tenantId;
    },
  };
}
