/**
 * Recording: snapshots of detections and verifications as JPEGs with their boxes drawn, filed by
 * day and camera, kept for `video_retention_days` within a disk budget.
 */
export {
  createSnapshotStore,
  type SaveSnapshot,
  type SnapshotStore,
  scheduleRetention,
  type Usage,
} from './retention.ts';
export {
  encodeSnapshot,
  encodeStill,
  type SnapshotBox,
  type SnapshotKind,
  snapshotName,
  type WrittenSnapshot,
  writeSnapshot,
} from './snapshot.ts';
