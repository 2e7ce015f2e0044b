/**
 * A camera's settings form checked in the page with the server's limits
 * (shared/vision/settings.ts CameraSettingsSchema; test/appliance/kiosk/web checks that both agree).
 * A blank field is left out, which the server takes as its default: a PUT replaces the section.
 */

export type CameraSettingKey =
  | 'resolution'
  | 'bitrate'
  | 'fps'
  | 'min_confidence'
  | 'iou_threshold'
  | 'inference_fps'
  | 'inference_resolution'
  | 'model_variant';

type Rule =
  | { kind: 'text'; pattern: RegExp; hint: string }
  | { kind: 'number'; integer: boolean; min: number; minExclusive: boolean; max?: number };

export interface CameraSettingField {
  key: CameraSettingKey;
  label: string;
  help: string;
  rule: Rule;
}

const rate = { kind: 'number', integer: false, min: 0, minExclusive: true, max: 120 } as const;
const fraction = { kind: 'number', integer: false, min: 0, minExclusive: false, max: 1 } as const;

export const CAMERA_SETTING_FIELDS: readonly CameraSettingField[] = [
  {
    key: 'resolution',
    label: 'Resolution',
    help: 'e.g. 1080p or 1920x1080; blank: the camera’s own',
    rule: { kind: 'text', pattern: /^(\d{3,4}p|\d{2,5}x\d{2,5})$/, hint: 'like 1080p or 1920x1080' },
  },
  {
    key: 'bitrate',
    label: 'Bitrate (bits/s)',
    help: 'whole number up to 100,000,000; blank: the camera’s own',
    rule: { kind: 'number', integer: true, min: 1, minExclusive: false, max: 100_000_000 },
  },
  { key: 'fps', label: 'Camera fps', help: 'above 0, at most 120', rule: rate },
  { key: 'min_confidence', label: 'Minimum confidence', help: '0 to 1 (default 0.8)', rule: fraction },
  { key: 'iou_threshold', label: 'IoU threshold', help: '0 to 1 (default 0.5)', rule: fraction },
  { key: 'inference_fps', label: 'Inference fps', help: 'above 0, at most 120 (default 15)', rule: rate },
  {
    key: 'inference_resolution',
    label: 'Inference resolution',
    help: 'width x height, e.g. 1280x720 (default)',
    rule: { kind: 'text', pattern: /^\d{2,5}x\d{2,5}$/, hint: 'like 1280x720' },
  },
  {
    key: 'model_variant',
    label: 'Model',
    help: 'a model name, e.g. vehicles; blank: the default',
    rule: {
      kind: 'text',
      pattern: /^[a-z0-9][a-z0-9_-]{0,63}$/,
      hint: 'lower-case letters, digits, - and _ (up to 64)',
    },
  },
];

export type CameraSettingsForm = Partial<Record<CameraSettingKey, string>>;
export type CameraSettingsBody = Partial<Record<CameraSettingKey, string | number>>;
export type FieldErrors = Partial<Record<CameraSettingKey, string>>;

function checkNumber(raw: string, rule: Extract<Rule, { kind: 'number' }>): number | string {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) return 'must be a number';
  const value = Number(raw);
  if (!Number.isFinite(value)) return 'must be a number';
  if (rule.integer && !Number.isInteger(value)) return 'must be a whole number';
  if (rule.minExclusive ? value <= rule.min : value < rule.min)
    return rule.minExclusive ? `must be above ${rule.min}` : `must be at least ${rule.min}`;
  if (rule.max !== undefined && value > rule.max) return `must be at most ${rule.max}`;
  return value;
}

/** One field: its value for the body, undefined when blank, or the error to show. */
export function checkField(
  field: CameraSettingField,
  input: string | undefined,
): { value?: string | number; error?: string } {
  const raw = (input ?? '').trim();
  if (raw === '') return {};
  if (field.rule.kind === 'text')
    return field.rule.pattern.test(raw) ? { value: raw } : { error: `must be ${field.rule.hint}` };
  const checked = checkNumber(raw, field.rule);
  return typeof checked === 'number' ? { value: checked } : { error: checked };
}

/** The whole form: the PUT body, or the errors per field (then nothing is sent). */
export function validateCameraSettings(
  form: CameraSettingsForm,
): { ok: true; body: CameraSettingsBody } | { ok: false; errors: FieldErrors } {
  const body: CameraSettingsBody = {};
  const errors: FieldErrors = {};
  for (const field of CAMERA_SETTING_FIELDS) {
    const { value, error } = checkField(field, form[field.key]);
    if (error) errors[field.key] = error;
    else if (value !== undefined) body[field.key] = value;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

/** The effective settings the server answers, as the form's text. */
export function settingsToForm(settings: Partial<Record<CameraSettingKey, unknown>>): CameraSettingsForm {
  const form: CameraSettingsForm = {};
  for (const { key } of CAMERA_SETTING_FIELDS) {
    const value = settings[key];
    form[key] = value === null || value === undefined ? '' : String(value);
  }
  return form;
}

/** A 400's details (`body.min_confidence`) as field errors; the rest is for the form as a whole. */
export function serverFieldErrors(details: ReadonlyArray<{ field: string; message: string }>) {
  const errors: FieldErrors = {};
  const other: string[] = [];
  for (const detail of details) {
    const key = detail.field.replace(/^body[./]/, '') as CameraSettingKey;
    if (CAMERA_SETTING_FIELDS.some((f) => f.key === key)) errors[key] = detail.message;
    else other.push(`${detail.field} ${detail.message}`);
  }
  return { errors, other };
}
