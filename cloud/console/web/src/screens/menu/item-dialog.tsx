/** Adding an item to a brand's menu, changing its name, category or description, adding a category. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { Dialog, ErrorNotice, Field, inputValue } from '../../components/ui.tsx';
import {
  type Category,
  createCategory,
  createItem,
  type MenuItem,
  type PublicationRef,
  patchItem,
} from './api.ts';
import type { Run } from './publish.ts';
import { parsePrice } from './staging.ts';

type Errors = Partial<Record<'name' | 'category_id' | 'price' | 'description', string>>;

/** The server's 400 details (`body.name`, `body.price_minor`) on the fields they name. */
function serverErrors(error: unknown): Errors {
  if (!(error instanceof ApiError) || error.status !== 400) return {};
  const errors: Errors = {};
  for (const detail of error.details) {
    const field = detail.field.split('.').pop() ?? '';
    const key = field === 'price_minor' ? 'price' : field;
    if (key === 'name' || key === 'category_id' || key === 'price' || key === 'description')
      errors[key] = `The cloud refused this: ${detail.message}`;
  }
  return errors;
}

function check(
  form: { name: string; category_id: string; price: string; description: string },
  adding: boolean,
) {
  const errors: Errors = {};
  if (form.name.trim() === '') errors.name = 'Give the item a name.';
  else if (form.name.length > 100) errors.name = 'A name has at most 100 characters.';
  if (!form.category_id) errors.category_id = 'Choose the category the item is listed under.';
  if (form.description.length > 1000) errors.description = 'A description has at most 1000 characters.';
  const price = parsePrice(form.price);
  if (adding && 'error' in price) errors.price = price.error;
  return errors;
}

export function ItemDialog(props: {
  brandId: string;
  brandName: string;
  categories: Category[];
  item?: MenuItem;
  onClose: (run: Run | null) => void;
}) {
  const { item } = props;
  const adding = item === undefined;
  const [form, setForm] = useState({
    name: item?.name ?? '',
    category_id: item?.category_id ?? props.categories[0]?.id ?? '',
    price: '',
    description: item?.description ?? '',
    available: item?.available ?? true,
  });
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<typeof form>) => setForm({ ...form, ...patch });

  const send = async (): Promise<{ publication: PublicationRef } | null> => {
    if (adding) {
      const price = parsePrice(form.price);
      const body = {
        brand_id: props.brandId,
        category_id: form.category_id,
        name: form.name.trim(),
        price_minor: 'minor' in price ? price.minor : 0,
        available: form.available,
        ...(form.description.trim() ? { description: form.description.trim() } : {}),
      };
      return (await createItem(body)).data;
    }
    const patch: { name?: string; category_id?: string; description?: string } = {};
    if (form.name.trim() !== item.name) patch.name = form.name.trim();
    if (form.category_id !== item.category_id) patch.category_id = form.category_id;
    if (form.description !== item.description) patch.description = form.description;
    if (Object.keys(patch).length === 0) return null;
    return (await patchItem(item.id, patch)).data;
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const found = check(form, adding);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setFailure(undefined);
    try {
      const answer = await send();
      const label = adding ? `New item ${form.name.trim()}` : `Changes to ${form.name.trim()}`;
      props.onClose(
        answer ? { id: answer.publication.id, label, stores_total: answer.publication.stores_total } : null,
      );
    } catch (caught) {
      setErrors(serverErrors(caught));
      setFailure(caught);
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={adding ? `Add an item to ${props.brandName}` : `Edit ${item.name}`}
      onClose={() => !busy && props.onClose(null)}
    >
      <form onSubmit={submit} noValidate data-testid="item-form">
        <p class="muted small">
          {adding
            ? `The item joins the ${props.brandName} menu at every store of the brand, published at once.`
            : `The change reaches every store of ${props.brandName}, published at once.`}
        </p>
        <Field label="Name" error={errors.name}>
          <input
            value={form.name}
            maxLength={100}
            data-testid="item-name"
            onInput={(e) => set({ name: inputValue(e) })}
          />
        </Field>
        <Field label="Category" error={errors.category_id}>
          <select
            value={form.category_id}
            data-testid="item-category"
            onChange={(e) => set({ category_id: inputValue(e) })}
          >
            {props.categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </Field>
        {adding && (
          <Field label="Price" hint="The brand's price at every store, e.g. 4.50" error={errors.price}>
            <input
              inputMode="decimal"
              value={form.price}
              data-testid="item-price"
              onInput={(e) => set({ price: inputValue(e) })}
            />
          </Field>
        )}
        <Field label="Description (optional)" error={errors.description}>
          <textarea rows={2} value={form.description} onInput={(e) => set({ description: inputValue(e) })} />
        </Field>
        {adding && (
          <label class="check-field">
            <input
              type="checkbox"
              checked={form.available}
              onChange={(e) => set({ available: (e.currentTarget as HTMLInputElement).checked })}
            />
            Available to order from the start
          </label>
        )}
        {failure !== undefined && Object.keys(serverErrors(failure)).length === 0 && (
          <ErrorNotice error={failure} title="It was not saved" />
        )}
        <div class="dialog-actions">
          <button type="button" class="btn" disabled={busy} onClick={() => props.onClose(null)}>
            Cancel
          </button>
          <button type="submit" class="btn primary" disabled={busy} data-testid="confirm">
            {busy ? 'Saving…' : adding ? 'Add and publish' : 'Save and publish'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function CategoryDialog(props: {
  brandId: string;
  brandName: string;
  onClose: (run: Run | null) => void;
}) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (name.trim() === '') return setError('Give the category a name, e.g. Burgers.');
    setBusy(true);
    setFailure(undefined);
    try {
      const { publication } = (await createCategory(props.brandId, name.trim())).data;
      props.onClose({
        id: publication.id,
        label: `New category ${name.trim()}`,
        stores_total: publication.stores_total,
      });
    } catch (caught) {
      setFailure(caught);
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Add a category to ${props.brandName}`} onClose={() => !busy && props.onClose(null)}>
      <form onSubmit={submit} noValidate>
        <Field label="Category name" error={error}>
          <input value={name} maxLength={100} onInput={(e) => setName(inputValue(e))} />
        </Field>
        {failure !== undefined && <ErrorNotice error={failure} title="It was not saved" />}
        <div class="dialog-actions">
          <button type="button" class="btn" disabled={busy} onClick={() => props.onClose(null)}>
            Cancel
          </button>
          <button type="submit" class="btn primary" disabled={busy} data-testid="confirm">
            {busy ? 'Saving…' : 'Add and publish'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
