/**
 * A camera's settings, checked here with the server's limits before anything is sent; a server
 * 400 is shown the same way, by field where it names one.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import {
  CAMERA_SETTING_FIELDS,
  type CameraSettingsForm,
  checkField,
  type FieldErrors,
  serverFieldErrors,
  settingsToForm,
  validateCameraSettings,
} from '../../lib/camera-settings.ts';
import { api } from '../../session.ts';

type Status = { kind: 'idle' | 'saving' | 'saved' } | { kind: 'error'; message: string };

export function SettingsForm(props: { cameraId: string; cameraName: string; editable: boolean }) {
  const [form, setForm] = useState<CameraSettingsForm>();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const path = `/v1/vision/cameras/${encodeURIComponent(props.cameraId)}/settings`;

  useEffect(() => {
    setForm(undefined);
    setErrors({});
    setStatus({ kind: 'idle' });
    api
      .get<Record<string, unknown>>(path)
      .then((s) => setForm(settingsToForm(s)))
      .catch((e: Error) => setStatus({ kind: 'error', message: e.message }));
  }, [path]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!form) return;
    const checked = validateCameraSettings(form);
    if (!checked.ok) {
      setErrors(checked.errors);
      setStatus({ kind: 'error', message: 'Fix the fields marked above; nothing was saved.' });
      return;
    }
    setErrors({});
    setStatus({ kind: 'saving' });
    try {
      setForm(settingsToForm(await api.put<Record<string, unknown>>(path, checked.body)));
      setStatus({ kind: 'saved' });
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) {
        const server = serverFieldErrors(e.details);
        setErrors(server.errors);
        setStatus({
          kind: 'error',
          message: `The appliance refused the settings: ${[e.message, ...server.other].join('; ')}`,
        });
      } else setStatus({ kind: 'error', message: (e as Error).message });
    }
  };

  const change = (key: keyof CameraSettingsForm, value: string) => {
    setForm((f) => ({ ...f, [key]: value }));
    setStatus({ kind: 'idle' });
    const field = CAMERA_SETTING_FIELDS.find((f) => f.key === key)!;
    // An error clears as soon as the value is right; new ones show on Save (not on leaving a field:
    // a message appearing then moves the Save button from under the finger that is pressing it).
    if (errors[key] && !checkField(field, value).error) setErrors((e) => ({ ...e, [key]: undefined }));
  };

  if (!form)
    return (
      <p class={status.kind === 'error' ? 'error-text' : 'muted'}>
        {status.kind === 'error' ? status.message : 'Loading settings…'}
      </p>
    );

  return (
    <form
      class="settings-form"
      data-testid="camera-settings-form"
      onSubmit={submit}
      noValidate
      aria-label={`Settings of ${props.cameraName}`}
    >
      <fieldset disabled={!props.editable || status.kind === 'saving'}>
        <legend>Settings of {props.cameraName}</legend>
        <div class="fields">
          {CAMERA_SETTING_FIELDS.map((field) => {
            const id = `cam-${field.key}`;
            const error = errors[field.key];
            return (
              <div class={`field ${error ? 'invalid' : ''}`} key={field.key}>
                <label for={id}>{field.label}</label>
                <input
                  id={id}
                  name={field.key}
                  inputMode={field.rule.kind === 'number' ? 'decimal' : 'text'}
                  value={form[field.key] ?? ''}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
                  onInput={(e) => change(field.key, (e.target as HTMLInputElement).value)}
                />
                <span class="help" id={`${id}-help`}>
                  {field.help}
                </span>
                {error && (
                  <span
                    class="field-error"
                    id={`${id}-error`}
                    data-testid="field-error"
                    data-field={field.key}
                  >
                    {field.label} {error}
                  </span>
                )}
              </div>
            );
          })}
        </div>
      </fieldset>
      {status.kind === 'error' && (
        <p class="error-text" role="alert" data-testid="form-error">
          {status.message}
        </p>
      )}
      {status.kind === 'saved' && (
        <p class="ok-text" role="status">
          Saved; the camera uses them now.
        </p>
      )}
      {props.editable && (
        <button
          type="submit"
          class="btn primary big"
          disabled={status.kind === 'saving'}
          data-testid="settings-save"
        >
          {status.kind === 'saving' ? 'Saving…' : 'Save settings'}
        </button>
      )}
    </form>
  );
}
