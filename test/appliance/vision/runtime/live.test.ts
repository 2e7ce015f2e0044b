import { describe, expect, it } from 'vitest';
import { withoutSecrets } from '../../../../appliance/vision/runtime/camera-status.ts';
import { liveFrameOf } from '../../../../appliance/vision/runtime/live.ts';

describe('a camera’s boxes for a screen', () => {
  it('normalises boxes to the frame, clamped, with the track each detection is', () => {
    const live = liveFrameOf('lane', {
      seq: 12,
      capturedAt: Date.parse('2026-06-10T12:00:01.000Z'),
      width: 640,
      height: 360,
      seen: {
        seq: 10,
        capturedAt: Date.parse('2026-06-10T12:00:00.800Z'),
        detections: [
          { box: [64, 36, 320, 180], classId: 0, className: 'vehicle', confidence: 0.91234 },
          { box: [-5, 300, 700, 400], classId: 0, className: 'vehicle', confidence: 0.8 },
          { box: [100, 100, 120, 130], classId: 1, className: 'person', confidence: 0.85 },
        ],
        tracks: [
          { trackId: 3, box: [70, 40, 318, 178], classId: 0, className: 'vehicle', confidence: 0.9 },
          { trackId: 4, box: [100, 100, 120, 130], classId: 0, className: 'vehicle', confidence: 0.9 },
        ],
      },
    });
    expect(live).toEqual({
      camera_id: 'lane',
      seq: 12,
      frame_at: '2026-06-10T12:00:01.000Z',
      detections_at: '2026-06-10T12:00:00.800Z',
      width: 640,
      height: 360,
      detections: [
        { class: 'vehicle', confidence: 0.912, box: [0.1, 0.1, 0.5, 0.5], track_id: 3 },
        { class: 'vehicle', confidence: 0.8, box: [0, 0.8333, 1, 1], track_id: null },
        // Another class's track is not this person, however well it overlaps.
        { class: 'person', confidence: 0.85, box: [0.1563, 0.2778, 0.1875, 0.3611], track_id: null },
      ],
    });
  });

  it('answers no boxes before the model has looked', () => {
    const live = liveFrameOf('pass', { seq: 1, capturedAt: 0, width: 4, height: 2, seen: undefined });
    expect(live).toMatchObject({ detections_at: null, detections: [] });
  });

  it('masks a source password in a camera’s failure', () => {
    expect(withoutSecrets('rtsp://admin:hunter2@10.0.0.5:554/live: Connection refused')).toBe(
      'rtsp://admin:***@10.0.0.5:554/live: Connection refused',
    );
    expect(withoutSecrets('ffmpeg ended (1): file:///clips/lane.mp4: No such file')).toBe(
      'ffmpeg ended (1): file:///clips/lane.mp4: No such file',
    );
  });
});
