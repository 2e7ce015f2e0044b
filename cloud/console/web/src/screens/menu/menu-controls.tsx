/** The menu's controls: which brand and store, the staged-changes bar, and the empty menu. */
import { Empty, Field, inputValue } from '../../components/ui.tsx';
import type { Brand, Store } from './api.ts';

export function Scope(props: {
  brands: Brand[];
  brandId: string | undefined;
  stores: Store[];
  storeId?: string | undefined;
  categories?: Array<{ id: string; name: string }>;
  categoryId?: string;
  locked: boolean;
  onChange: (next: Record<string, string | undefined>) => void;
}) {
  return (
    <form class="toolbar" aria-label="Which menu" onSubmit={(e) => e.preventDefault()}>
      <Field label="Brand">
        <select
          data-testid="menu-brand"
          value={props.brandId ?? ''}
          disabled={props.locked}
          onChange={(e) =>
            props.onChange({ brand_id: inputValue(e), location_id: undefined, category: undefined })
          }
        >
          {!props.brandId && <option value="">Choose a brand</option>}
          {props.brands.map((b) => (
            <option key={b.id} value={b.id}>
              {b.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Prices for">
        <select
          data-testid="menu-store"
          value={props.storeId ?? ''}
          disabled={props.locked}
          onChange={(e) => props.onChange({ location_id: inputValue(e) })}
        >
          <option value="">All stores (the brand's menu)</option>
          {props.stores.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
              {s.status === 'inactive' ? ' (inactive)' : ''}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Category">
        <select value={props.categoryId ?? ''} onChange={(e) => props.onChange({ category: inputValue(e) })}>
          <option value="">All categories</option>
          {(props.categories ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </Field>
      {props.locked && (
        <p class="muted small scope-hint">Publish or discard your changes to switch brand or store.</p>
      )}
    </form>
  );
}

export function ChangesBar(props: {
  count: number;
  problems: number;
  busy: boolean;
  target: string;
  canAdd: boolean;
  onDiscard: () => void;
  onPublish: () => void;
  onAdd: () => void;
  onAddCategory: () => void;
}) {
  const { count } = props;
  return (
    <div class={`changes-bar ${count > 0 ? 'has-changes' : ''}`}>
      <div>
        <strong data-testid="unpublished-count" aria-live="polite">
          {count === 0 ? 'No unpublished changes' : `${count} unpublished change${count === 1 ? '' : 's'}`}
        </strong>
        <div class="muted small">
          {props.problems > 0
            ? `Fix the ${props.problems === 1 ? 'price' : `${props.problems} prices`} marked below to publish.`
            : `Publishing sets ${props.target}.`}
        </div>
      </div>
      <div class="changes-actions">
        <button type="button" class="btn" onClick={props.onAddCategory} disabled={props.busy}>
          Add category
        </button>
        <button
          type="button"
          class="btn"
          onClick={props.onAdd}
          disabled={props.busy || !props.canAdd}
          title={props.canAdd ? undefined : 'Add a category first'}
        >
          Add item
        </button>
        <button type="button" class="btn" onClick={props.onDiscard} disabled={count === 0 || props.busy}>
          Discard
        </button>
        <button
          type="button"
          class="btn primary"
          data-testid="publish"
          onClick={props.onPublish}
          disabled={count === 0 || props.busy}
        >
          {props.busy ? 'Publishing…' : 'Publish'}
        </button>
      </div>
    </div>
  );
}

export function NoItems(props: { filtered: boolean; hasCategories: boolean }) {
  if (props.filtered)
    return (
      <Empty title="No items in this category">Choose “All categories”, or add an item to this one.</Empty>
    );
  return (
    <Empty title="This menu has no items yet">
      {props.hasCategories
        ? 'Add the first item with “Add item”: every store of the brand gets it at its next sync.'
        : 'Start with “Add category” (e.g. Burgers), then add items to it.'}
    </Empty>
  );
}
