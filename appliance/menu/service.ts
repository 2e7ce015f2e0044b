import type { Clock } from '../../shared/clock.ts';
import { toDecimal } from '../../shared/events.ts';
import type { ErrorDetail } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ApplianceDatabase, ChangeLog } from '../db/index.ts';
import * as errors from './errors.ts';
import { createMenuStore, type MenuCategory, type MenuItem, type OrderableItem } from './store.ts';

export interface MenuDeps {
  db: ApplianceDatabase;
  changes: ChangeLog;
  clock: Clock;
  newId: IdGenerator;
}

export interface NewCategory {
  name: string;
  /** Defaults to after the last category. */
  position?: number | undefined;
}

export interface CategoryPatch {
  name?: string | undefined;
  position?: number | undefined;
}

export interface NewItem {
  category_id: string;
  name: string;
  description?: string | undefined;
  price_minor: number;
  available?: boolean | undefined;
}

/** Price and availability have commands of their own, because each has an event of its own. */
export interface ItemPatch {
  category_id?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
}

export const MENU_LIMITS = { nameLength: 100, descriptionLength: 1000 } as const;

const ITEM_FIELDS = ['category_id', 'name', 'description'] as const;

/** The event payload for an item: prices in decimal currency units, as the documented shapes carry money. */
const itemData = (item: MenuItem) => ({
  id: item.id,
  category_id: item.category_id,
  name: item.name,
  description: item.description,
  price: toDecimal(item.price_minor),
  available: item.available,
  version: item.version,
  updated_at: item.updated_at,
});

function checkName(name: string | undefined, problems: ErrorDetail[]) {
  if (name === undefined) return;
  const trimmed = name.trim();
  if (trimmed.length === 0) problems.push({ field: 'body.name', message: 'must not be empty' });
  if (trimmed.length > MENU_LIMITS.nameLength)
    problems.push({ field: 'body.name', message: `must be at most ${MENU_LIMITS.nameLength} characters` });
}

function checkPrice(priceMinor: number, problems: ErrorDetail[]) {
  if (!Number.isSafeInteger(priceMinor) || priceMinor < 0)
    problems.push({ field: 'body.price_minor', message: 'must be a whole number of minor units, 0 or more' });
}

function checkPosition(position: number | undefined, problems: ErrorDetail[]) {
  if (position !== undefined && (!Number.isSafeInteger(position) || position < 0))
    problems.push({ field: 'body.position', message: 'must be a whole number, 0 or more' });
}

function checkDescription(description: string | undefined, problems: ErrorDetail[]) {
  if (description !== undefined && description.length > MENU_LIMITS.descriptionLength)
    problems.push({
      field: 'body.description',
      message: `must be at most ${MENU_LIMITS.descriptionLength} characters`,
    });
}

const throwIfAny = (problems: ErrorDetail[]) => {
  if (problems.length > 0) throw errors.invalid(problems);
};

export function createMenuService(deps: MenuDeps) {
  const { db, changes, clock, newId } = deps;
  const store = createMenuStore(db);
  const now = () => clock.now().toISOString();

  const requireItem = (id: string) => {
    const item = store.getItem(id);
    if (!item) throw errors.itemNotFound();
    return item;
  };
  const requireCategory = (id: string) => {
    const category = store.getCategory(id);
    if (!category) throw errors.categoryNotFound();
    return category;
  };
  const checkNameFree = (name: string, exceptId?: string) => {
    const holder = store.findCategoryByName(name);
    if (holder && holder.id !== exceptId) throw errors.categoryNameTaken(name);
  };
  const saveItem = (item: MenuItem) => {
    store.updateItem(item);
    changes.recordChange({ table: 'menu_items', rowId: item.id, operation: 'update', version: item.version });
  };
  const bump = <T extends { version: number; updated_at: string }>(row: T, patch: Partial<T>): T => ({
    ...row,
    ...patch,
    version: row.version + 1,
    updated_at: now(),
  });

  return {
    createCategory(input: NewCategory): MenuCategory {
      const problems: ErrorDetail[] = [];
      checkName(input.name, problems);
      checkPosition(input.position, problems);
      throwIfAny(problems);
      return db.transaction(() => {
        const name = input.name.trim();
        checkNameFree(name);
        const category: MenuCategory = {
          id: newId(),
          name,
          position: input.position ?? store.nextCategoryPosition(),
          version: 1,
          updated_at: now(),
        };
        store.insertCategory(category);
        changes.recordChange({
          table: 'menu_categories',
          rowId: category.id,
          operation: 'insert',
          version: 1,
        });
        return category;
      })();
    },

    updateCategory(id: string, patch: CategoryPatch): MenuCategory {
      const problems: ErrorDetail[] = [];
      checkName(patch.name, problems);
      checkPosition(patch.position, problems);
      throwIfAny(problems);
      return db.transaction(() => {
        const current = requireCategory(id);
        const name = patch.name?.trim() ?? current.name;
        const position = patch.position ?? current.position;
        if (name === current.name && position === current.position) return current;
        checkNameFree(name, id);
        const next = bump(current, { name, position });
        store.updateCategory(next);
        changes.recordChange({
          table: 'menu_categories',
          rowId: id,
          operation: 'update',
          version: next.version,
        });
        return next;
      })();
    },

    getCategory: requireCategory,
    listCategories: (): MenuCategory[] => store.listCategories(),

    createItem(input: NewItem): MenuItem {
      const problems: ErrorDetail[] = [];
      checkName(input.name, problems);
      checkDescription(input.description, problems);
      checkPrice(input.price_minor, problems);
      throwIfAny(problems);
      return db.transaction(() => {
        if (!store.getCategory(input.category_id)) throw errors.unknownCategory();
        const item: MenuItem = {
          id: newId(),
          category_id: input.category_id,
          name: input.name.trim(),
          description: input.description ?? '',
          price_minor: input.price_minor,
          available: input.available ?? true,
          version: 1,
          updated_at: now(),
        };
        store.insertItem(item);
        changes.recordChange({ table: 'menu_items', rowId: item.id, operation: 'insert', version: 1 });
        // The catalog has no "created" event: subscribers learn of a new item as an update.
        changes.emit('menu.item_updated', {
          ...itemData(item),
          created: true,
          changed: [...ITEM_FIELDS, 'price', 'available'],
        });
        return item;
      })();
    },

    /** Name, description and category; a patch that changes nothing writes nothing. */
    updateItem(id: string, patch: ItemPatch): MenuItem {
      const problems: ErrorDetail[] = [];
      checkName(patch.name, problems);
      checkDescription(patch.description, problems);
      throwIfAny(problems);
      return db.transaction(() => {
        const current = requireItem(id);
        const wanted = {
          category_id: patch.category_id ?? current.category_id,
          name: patch.name?.trim() ?? current.name,
          description: patch.description ?? current.description,
        };
        const changed = ITEM_FIELDS.filter((field) => wanted[field] !== current[field]);
        if (changed.length === 0) return current;
        if (!store.getCategory(wanted.category_id)) throw errors.unknownCategory();
        const next = bump(current, wanted);
        saveItem(next);
        changes.emit('menu.item_updated', { ...itemData(next), created: false, changed });
        return next;
      })();
    },

    getItem: requireItem,
    listItems: (filter: { category_id?: string | undefined } = {}): MenuItem[] =>
      store.listItems(filter.category_id),

    setAvailability(id: string, available: boolean): MenuItem {
      return db.transaction(() => {
        const current = requireItem(id);
        if (current.available === available) return current;
        const next = bump(current, { available });
        saveItem(next);
        changes.emit('menu.item_availability', itemData(next));
        return next;
      })();
    },

    changePrice(id: string, priceMinor: number): MenuItem {
      const problems: ErrorDetail[] = [];
      checkPrice(priceMinor, problems);
      throwIfAny(problems);
      return db.transaction(() => {
        const current = requireItem(id);
        if (current.price_minor === priceMinor) return current;
        const next = bump(current, { price_minor: priceMinor });
        saveItem(next);
        changes.emit('menu.price_changed', {
          ...itemData(next),
          old_price: toDecimal(current.price_minor),
          new_price: toDecimal(next.price_minor),
        });
        return next;
      })();
    },

    /** Name, price and availability of each known id, once each; unknown ids are simply absent. */
    itemsForOrder(ids: readonly string[]): OrderableItem[] {
      const unique = [...new Set(ids)];
      return unique.length === 0 ? [] : store.itemsByIds(unique);
    },
  };
}

export type MenuService = ReturnType<typeof createMenuService>;
