/** The brand's items (or one store's view of them) with price and availability edited in place. */
import { useEffect, useState } from 'preact/hooks';
import { Pill } from '../../components/ui.tsx';
import { formatMoney } from '../../format.ts';
import type { Category, MenuItem } from './api.ts';
import { currentOf, formatPriceInput, type Staged, type Staging } from './staging.ts';

export function MenuTable(props: {
  items: MenuItem[];
  categories: Category[];
  storeId: string | undefined;
  staging: Staging;
  problems: Map<string, string>;
  /** Flag wrong prices even in the focused field (after a refused Publish). */
  insist: boolean;
  disabled: boolean;
  onEdit: (item: MenuItem) => void;
}) {
  const categoryName = new Map(props.categories.map((c) => [c.id, c.name]));
  return (
    <div class="table-wrap">
      <table class="table menu-table" data-testid="menu-items">
        <caption class="visually-hidden">
          {props.storeId ? "Items with this store's prices" : "Items with the brand's prices"}
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Category</th>
            <th scope="col">Price</th>
            <th scope="col">Available</th>
            <th scope="col">{props.storeId ? 'Set by' : "Stores' own"}</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => (
            <ItemRow
              key={item.id}
              item={item}
              category={categoryName.get(item.category_id) ?? '—'}
              storeId={props.storeId}
              staged={props.staging.staged.get(item.id)}
              problem={props.problems.get(item.id)}
              insist={props.insist}
              disabled={props.disabled}
              staging={props.staging}
              onEdit={props.onEdit}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ItemRow(props: {
  item: MenuItem;
  category: string;
  storeId: string | undefined;
  staged: Staged | undefined;
  problem: string | undefined;
  insist: boolean;
  disabled: boolean;
  staging: Staging;
  onEdit: (item: MenuItem) => void;
}) {
  const { item, storeId, staged } = props;
  const current = currentOf(item, storeId);
  const available = staged?.available ?? current.available;
  const changed = staged !== undefined;
  return (
    <tr
      data-testid="menu-item-row"
      data-item-id={item.id}
      data-item-name={item.name}
      class={changed ? 'staged' : undefined}
    >
      <td>
        <span class="item-name">{item.name}</span>
        {item.description && <div class="muted small">{item.description}</div>}
      </td>
      <td>{props.category}</td>
      <td>
        <PriceInput
          item={item}
          value={staged?.price ?? formatPriceInput(current.price_minor)}
          problem={props.problem}
          insist={props.insist}
          changed={staged?.price !== undefined}
          was={current.price_minor}
          disabled={props.disabled}
          onInput={(text) => props.staging.setPrice(item, storeId, text)}
        />
      </td>
      <td>
        <label class="available-toggle">
          <input
            type="checkbox"
            checked={available}
            disabled={props.disabled}
            aria-label={`${item.name} available`}
            data-testid="available-input"
            onChange={(e) =>
              props.staging.setAvailable(item, storeId, (e.currentTarget as HTMLInputElement).checked)
            }
          />
          <span aria-hidden="true">{available ? 'Yes' : 'No'}</span>
        </label>
        {staged?.available !== undefined && (
          <div class="muted small">was {current.available ? 'yes' : 'no'}</div>
        )}
      </td>
      <td>
        <Source item={item} storeId={storeId} />
      </td>
      <td>
        <button
          type="button"
          class="btn small"
          aria-label={`Edit ${item.name}`}
          disabled={props.disabled}
          onClick={() => props.onEdit(item)}
        >
          Edit
        </button>
      </td>
    </tr>
  );
}

function Source(props: { item: MenuItem; storeId: string | undefined }) {
  const { item, storeId } = props;
  if (!storeId) {
    const own = item.overrides.filter((o) => o.price_minor !== null).length;
    return own === 0 ? (
      <span class="muted">none</span>
    ) : (
      <span>{own === 1 ? '1 store' : `${own} stores`}</span>
    );
  }
  const current = currentOf(item, storeId);
  if (!current.ownPrice && !current.ownAvailability) return <span class="muted">Brand</span>;
  return (
    <Pill tone="info" title={`Brand price ${formatMoney(item.price_minor / 100)}`}>
      Store's own {current.ownPrice ? 'price' : 'availability'}
    </Pill>
  );
}

/** Keeps what is being typed while focused; shows the staged or current value otherwise. */
function PriceInput(props: {
  item: MenuItem;
  value: string;
  problem: string | undefined;
  insist: boolean;
  changed: boolean;
  was: number;
  disabled: boolean;
  onInput: (text: string) => void;
}) {
  const [text, setText] = useState(props.value);
  const [focused, setFocused] = useState(false);
  useEffect(() => {
    if (!focused) setText(props.value);
  }, [props.value, focused]);
  const errorId = `price-error-${props.item.id}`;
  // A half-typed price ("4.") is not an error yet: say so once the field is left.
  const problem = focused && !props.insist ? undefined : props.problem;
  return (
    <div class="price-cell">
      <input
        class="price-input"
        inputMode="decimal"
        data-testid="price-input"
        aria-label={`Price of ${props.item.name}`}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? errorId : undefined}
        value={focused ? text : props.value}
        disabled={props.disabled}
        onFocus={() => setFocused(true)}
        onBlur={() => setFocused(false)}
        onInput={(e) => {
          const next = (e.currentTarget as HTMLInputElement).value;
          setText(next);
          props.onInput(next);
        }}
      />
      {props.changed && !problem && <div class="muted small">was {formatMoney(props.was / 100)}</div>}
      {problem && (
        <div class="error-text small" id={errorId} data-testid="price-error">
          {problem}
        </div>
      )}
    </div>
  );
}
