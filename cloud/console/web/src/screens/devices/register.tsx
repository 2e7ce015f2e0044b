/** Register a device in a store: it starts pending, with a one-time enrolment token. */
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Field, inputValue } from '../../components/ui.tsx';
import { api } from '../../session.ts';
import { TYPE_LABELS } from './labels.ts';
import type { Stores } from './stores.ts';
import { EnrolmentToken } from './token.tsx';
import { DEVICE_TYPES, type DeviceType, type NewDevice } from './types.ts';

interface Form {
  location_id: string;
  device_type: DeviceType;
  name: string;
  serial_number: string;
  model: string;
  firmware_version: string;
}

const bodyOf = (form: Form) => ({
  location_id: form.location_id.trim(),
  device_type: form.device_type,
  name: form.name.trim(),
  serial_number: form.serial_number.trim(),
  ...(form.model.trim() ? { model: form.model.trim() } : {}),
  ...(form.firmware_version.trim() ? { firmware_version: form.firmware_version.trim() } : {}),
});

function StoreField(props: { stores: Stores; value: string; onChange: (id: string) => void }) {
  const active = props.stores.list.filter((store) => store.status === 'active');
  if (active.length === 0)
    return (
      <Field label="Store id" hint="The store's location id (the store list could not be read).">
        <input required value={props.value} onInput={(e) => props.onChange(inputValue(e))} />
      </Field>
    );
  return (
    <Field label="Store">
      <select required value={props.value} onChange={(e) => props.onChange(inputValue(e))}>
        <option value="">Choose a store…</option>
        {active.map((store) => (
          <option key={store.id} value={store.id}>
            {store.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

function RegisterForm(props: { stores: Stores; onDone: (device: NewDevice) => void; onCancel: () => void }) {
  const [form, setForm] = useState<Form>({
    location_id: '',
    device_type: 'appliance',
    name: '',
    serial_number: '',
    model: '',
    firmware_version: '',
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });
  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api.post<{ data: NewDevice }>('/v1/mdm/devices', bodyOf(form));
      props.onDone(answer.data);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} data-testid="register-device-form">
      <StoreField
        stores={props.stores}
        value={form.location_id}
        onChange={(id) => set({ location_id: id })}
      />
      <Field label="Type">
        <select value={form.device_type} onChange={(e) => set({ device_type: inputValue(e) as DeviceType })}>
          {DEVICE_TYPES.map((type) => (
            <option key={type} value={type}>
              {TYPE_LABELS[type]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Name" hint="How staff know it, e.g. Grill KDS 2">
        <input required maxLength={120} value={form.name} onInput={(e) => set({ name: inputValue(e) })} />
      </Field>
      <Field label="Serial number" hint="As printed on the unit">
        <input
          required
          maxLength={128}
          value={form.serial_number}
          onInput={(e) => set({ serial_number: inputValue(e) })}
        />
      </Field>
      <div class="grid-2">
        <Field label="Model (optional)">
          <input maxLength={120} value={form.model} onInput={(e) => set({ model: inputValue(e) })} />
        </Field>
        <Field label="Firmware version (optional)">
          <input
            maxLength={64}
            value={form.firmware_version}
            onInput={(e) => set({ firmware_version: inputValue(e) })}
          />
        </Field>
      </div>
      {error !== undefined && <ErrorNotice error={error} title="The device was not registered" />}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" class="btn primary" aria-disabled={busy}>
          {busy ? 'Registering…' : 'Register device'}
        </button>
      </div>
    </form>
  );
}

export function RegisterDeviceDialog(props: { stores: Stores; onClose: (registered: boolean) => void }) {
  const [device, setDevice] = useState<NewDevice>();
  if (!device)
    return (
      <Dialog key="form" title="Register a device" onClose={() => props.onClose(false)} wide>
        <RegisterForm stores={props.stores} onDone={setDevice} onCancel={() => props.onClose(false)} />
      </Dialog>
    );
  return (
    <Dialog key="token" title={`${device.name} is registered`} onClose={() => props.onClose(true)} wide>
      <EnrolmentToken
        token={device.enrollment_token}
        deviceType={device.device_type}
        locationId={device.location_id}
        expiresAt={device.enrollment_token_expires_at}
      />
      <div class="dialog-actions">
        <button type="button" class="btn primary" onClick={() => props.onClose(true)}>
          I have copied the token
        </button>
      </div>
    </Dialog>
  );
}
