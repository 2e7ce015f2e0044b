import { Readable } from 'node:stream';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { StorageConfig } from '../config.ts';
import { contentTypeOf, DEFAULT_CONTENT_TYPE } from './content-types.ts';
import type { ObjectStore } from './index.ts';

type S3Config = Extract<StorageConfig, { kind: 's3' }>;

/** Objects in an S3-compatible bucket; credentials come from the AWS SDK's default chain. */
export function createS3Store(config: S3Config, client?: S3Client): ObjectStore {
  const s3 =
    client ??
    new S3Client({
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    });
  return {
    async get(key) {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: config.bucket, Key: key }));
        if (!(object.Body instanceof Readable) || object.ETag === undefined) return undefined;
        return {
          stream: object.Body,
          contentType: object.ContentType || DEFAULT_CONTENT_TYPE,
          etag: object.ETag,
          size: object.ContentLength ?? 0,
        };
      } catch (error) {
        if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
        throw error;
      }
    },
    async put(key, body) {
      await s3.send(
        new PutObjectCommand({
          Bucket: config.bucket,
          Key: key,
          Body: body,
          ContentType: contentTypeOf(key),
        }),
      );
    },
    async close() {
      s3.destroy();
    },
  };
}
