import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CAMERA_SETTING_FIELDS,
  type CameraSettingKey,
  checkField,
  serverFieldErrors,
  settingsToForm,
  validateCameraSettings,
} from '../../../../appliance/kiosk/web/src/lib/camera-settings.ts';
import { CAMERA_DEFAULTS, CameraSettingsSchema } from '../../../../shared/vision/settings.ts';

const field = (key: CameraSettingKey) => CAMERA_SETTING_FIELDS.find((f) => f.key === key)!;
const serverAccepts = (key: CameraSettingKey, value: unknown) =>
  Value.Check(CameraSettingsSchema, { [key]: value });

describe('camera settings checked in the page', () => {
  it('covers exactly the server schema’s fields', () => {
    expect(CAMERA_SETTING_FIELDS.map((f) => f.key).sort()).toEqual(
      Object.keys(CameraSettingsSchema.properties).sort(),
    );
  });

  it('sends a valid form, numbers as numbers, leaving blanks out', () => {
    expect(
      validateCameraSettings({
        min_confidence: '0.75',
        inference_fps: ' 10 ',
        bitrate: '',
        resolution: '1080p',
      }),
    ).toEqual({ ok: true, body: { min_confidence: 0.75, inference_fps: 10, resolution: '1080p' } });
  });

  it('refuses bad values with a message per field, and sends nothing', () => {
    const result = validateCameraSettings({
      min_confidence: '1.5',
      iou_threshold: 'abc',
      fps: '0',
      bitrate: '2.5',
      inference_resolution: '1280*720',
      model_variant: 'Vehicles',
    });
    expect(result).toEqual({
      ok: false,
      errors: {
        min_confidence: 'must be at most 1',
        iou_threshold: 'must be a number',
        fps: 'must be above 0',
        bitrate: 'must be a whole number',
        inference_resolution: 'must be like 1280x720',
        model_variant: 'must be lower-case letters, digits, - and _ (up to 64)',
      },
    });
  });

  it('agrees with the server schema on numbers around every limit', () => {
    const numeric = CAMERA_SETTING_FIELDS.filter((f) => f.rule.kind === 'number');
    const edges = [-1, -0.0001, 0, 0.0001, 0.5, 1, 1.0001, 2, 60, 119.99, 120, 120.01, 1e6, 2.5];
    for (const f of numeric)
      for (const value of edges)
        expect([f.key, value, checkField(f, String(value)).error === undefined]).toEqual([
          f.key,
          value,
          serverAccepts(f.key, value),
        ]);
  });

  it('agrees with the server schema on any number typed', () => {
    const numeric = CAMERA_SETTING_FIELDS.filter((f) => f.rule.kind === 'number');
    fc.assert(
      fc.property(
        fc.constantFrom(...numeric),
        fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1000, max: 1000 }), fc.integer()),
        (f, value) => (checkField(f, String(value)).error === undefined) === serverAccepts(f.key, value),
      ),
    );
  });

  it('agrees with the server schema on any text typed', () => {
    const text = CAMERA_SETTING_FIELDS.filter((f) => f.rule.kind === 'text');
    const sample = fc.oneof(
      fc.string({ maxLength: 70 }),
      fc.stringMatching(/^[a-z0-9_x-]{1,70}$/),
      fc.stringMatching(/^\d{1,6}(p|x\d{1,6})$/),
    );
    fc.assert(
      fc.property(fc.constantFrom(...text), sample, (f, raw) => {
        if (raw.trim() !== raw || raw === '') return true; // the form trims and leaves blanks out
        return (checkField(f, raw).error === undefined) === serverAccepts(f.key, raw);
      }),
    );
  });

  it('fills the form from the effective settings, nulls as blanks', () => {
    expect(settingsToForm(CAMERA_DEFAULTS)).toEqual({
      resolution: '',
      bitrate: '',
      fps: '',
      min_confidence: '0.8',
      iou_threshold: '0.5',
      inference_fps: '15',
      inference_resolution: '1280x720',
      model_variant: '',
    });
  });

  it('puts a server 400’s details on their fields', () => {
    expect(
      serverFieldErrors([
        { field: 'body.min_confidence', message: 'must be <= 1' },
        { field: 'body.colour', message: 'is not an accepted field' },
      ]),
    ).toEqual({
      errors: { min_confidence: 'must be <= 1' },
      other: ['body.colour is not an accepted field'],
    });
  });

  it('rejects text that is not a plain number', () => {
    for (const raw of ['0x10', 'Infinity', '1,5', '--1', '1e', '.'])
      expect(checkField(field('fps'), raw).error).toBe('must be a number');
    expect(checkField(field('fps'), '1e1').error).toBeUndefined();
  });
});
