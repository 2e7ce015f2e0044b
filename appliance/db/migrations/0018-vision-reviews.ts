import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 18,
  name: 'vision-reviews',
  up(db) {
    db.exec(`
      -- A person's word on a verification (the kiosk asks when it raises a mismatch): was the camera
      -- right? The share it was right over the last day is the camera's detection accuracy.
      create table vision_verification_reviews (
        verification_id text primary key,
        camera_id text not null,
        correct integer not null check (correct in (0, 1)),
        note text,
        reviewed_by text not null,
        reviewed_at text not null
      );
      create index vision_verification_reviews_camera_at on vision_verification_reviews (camera_id, reviewed_at);
    `);
  },
};
