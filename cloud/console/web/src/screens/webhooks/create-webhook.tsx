/** A new subscription on either interface: the URL, the events (the admin catalog when there is one), the secret. */
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Field, inputValue, Loading } from '../../components/ui.tsx';
import { useResource } from '../../hooks.ts';
import { type CatalogCategory, type Iface, loadCatalog, webhookApi } from './client.ts';
import { SecretReveal } from './secret-dialogs.tsx';

/** A signing secret made here, as the subscription interface asks for one. */
function newSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

const splitEvents = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((name) => name.trim())
    .filter(Boolean);

export function CreateWebhook(props: { iface: Iface; onClose: () => void; onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [typed, setTyped] = useState('');
  const [secret, setSecret] = useState(() => (props.iface === 'subscription' ? newSecret() : ''));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [shown, setShown] = useState<string | null>(null);
  const chosen = props.iface === 'admin' ? events : splitEvents(typed);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { url: url.trim(), events: chosen };
      if (secret.trim()) body.secret = secret.trim();
      if (props.iface === 'admin' && description.trim()) body.description = description.trim();
      const created = await webhookApi.create(props.iface, body);
      props.onCreated();
      setShown(created.secret ?? secret.trim());
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  if (shown)
    return (
      <SecretReveal
        title="Subscription created"
        secret={shown}
        note="Deliveries are signed with this secret. Give it to the receiver so it can check each request."
        onClose={props.onClose}
      />
    );
  return (
    <Dialog
      title={props.iface === 'admin' ? 'New webhook (admin interface)' : 'New subscription'}
      onClose={props.onClose}
      wide
    >
      <form onSubmit={submit} class="dialog-body" data-testid="create-webhook-form">
        <Field label="Receiver URL" hint="http(s), reachable from the cloud; private addresses are refused.">
          <input
            type="url"
            required
            maxLength={2048}
            value={url}
            data-testid="webhook-url"
            onInput={(e) => setUrl(inputValue(e))}
          />
        </Field>
        {props.iface === 'admin' && (
          <Field label="Description (optional)">
            <input maxLength={500} value={description} onInput={(e) => setDescription(inputValue(e))} />
          </Field>
        )}
        {props.iface === 'admin' ? (
          <EventPicker value={events} onChange={setEvents} />
        ) : (
          <Field
            label="Events"
            hint="Names of the subscription catalog, category.* or *, separated by commas, e.g. order.*, payment.processed"
          >
            <input
              required
              value={typed}
              data-testid="webhook-events"
              onInput={(e) => setTyped(inputValue(e))}
            />
          </Field>
        )}
        <Field
          label={props.iface === 'admin' ? 'Signing secret (optional)' : 'Signing secret'}
          hint={
            props.iface === 'admin'
              ? 'Left empty, the cloud makes one and shows it once.'
              : 'At least 16 characters; one was made for you.'
          }
        >
          <input
            required={props.iface === 'subscription'}
            minLength={16}
            maxLength={256}
            value={secret}
            onInput={(e) => setSecret(inputValue(e))}
          />
        </Field>
        {error !== undefined && <ErrorNotice error={error} title="The subscription was not created" />}
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={props.onClose} disabled={busy}>
            Cancel
          </button>
          <button
            type="submit"
            class="btn primary"
            disabled={busy || chosen.length === 0}
            data-testid="create-webhook-submit"
          >
            {busy ? 'Creating…' : 'Create'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function EventPicker(props: { value: string[]; onChange: (events: string[]) => void }) {
  const catalog = useResource((signal) => loadCatalog(signal), []);
  const toggle = (name: string, on: boolean) =>
    props.onChange(on ? [...props.value, name] : props.value.filter((event) => event !== name));
  if (catalog.error !== undefined)
    return (
      <ErrorNotice error={catalog.error} onRetry={catalog.reload} title="The event catalog did not load" />
    );
  if (!catalog.data) return <Loading label="Loading the event catalog…" />;
  return (
    <fieldset class="event-picker" data-testid="event-picker">
      <legend>Events</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={props.value.includes('*')}
          onChange={(e) => toggle('*', (e.currentTarget as HTMLInputElement).checked)}
        />
        Every event (*)
      </label>
      {catalog.data.map((category) => (
        <CategoryChoices key={category.category} category={category} value={props.value} toggle={toggle} />
      ))}
    </fieldset>
  );
}

function CategoryChoices(props: {
  category: CatalogCategory;
  value: string[];
  toggle: (name: string, on: boolean) => void;
}) {
  const all = `${props.category.category}.*`;
  const wholeCategory = props.value.includes(all) || props.value.includes('*');
  return (
    <div class="event-category">
      <label class="check strong">
        <input
          type="checkbox"
          checked={props.value.includes(all)}
          onChange={(e) => props.toggle(all, (e.currentTarget as HTMLInputElement).checked)}
        />
        All {props.category.category} events ({all})
      </label>
      {props.category.events.map((event) => (
        <label class="check" key={event.name} title={event.description}>
          <input
            type="checkbox"
            disabled={wholeCategory}
            checked={wholeCategory || props.value.includes(event.name)}
            onChange={(e) => props.toggle(event.name, (e.currentTarget as HTMLInputElement).checked)}
          />
          <code>{event.name}</code> <span class="muted small">{event.description}</span>
        </label>
      ))}
    </div>
  );
}
