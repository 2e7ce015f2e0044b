import { hash, verify } from '@node-rs/argon2';

// @node-rs/argon2 exports Algorithm as a const enum, which isolated modules cannot read.
const ARGON2ID = 2;

export interface HashingCost {
  /** KiB of memory per hash; OWASP's argon2id floor is 19 MiB. */
  memoryCost: number;
  timeCost: number;
}

export const PRODUCTION_HASHING: HashingCost = { memoryCost: 19_456, timeCost: 2 };

export interface SecretHasher {
  hash(secret: string): Promise<string>;
  verify(encoded: string, secret: string): Promise<boolean>;
  /** Spends the same time as a real check, so an unknown account answers as slowly as a known one. */
  verifyDummy(secret: string): Promise<void>;
}

/** argon2id for passwords and PINs; the parameters travel inside each encoded hash. */
export function createSecretHasher(cost: HashingCost = PRODUCTION_HASHING): SecretHasher {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: cost.memoryCost,
    timeCost: cost.timeCost,
    parallelism: 1,
  };
  const dummy = hash('not-a-real-secret', options);
  return {
    hash: (secret) => hash(secret, options),
    verify: (encoded, secret) => verify(encoded, secret).catch(() => false),
    verifyDummy: async (secret) => {
      await verify(await dummy, secret).catch(() => false);
    },
  };
}
