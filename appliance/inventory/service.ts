import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ApplianceDatabase, ChangeLog } from '../db/index.ts';
import * as errors from './errors.ts';
import { createInventoryStore, type InventoryItemRow, type MovementRow } from './store.ts';

export const UNITS = ['each', 'g', 'kg', 'ml', 'l', 'oz', 'lb'] as const;
export type Unit = (typeof UNITS)[number];

/** Quantities travel as decimals of their unit and are kept in integer thousandths. */
const toMilli = (quantity: number) => Math.round(quantity * 1000);
const fromMilli = (milli: number) => milli / 1000;

export const toInventoryItem = (row: InventoryItemRow) => ({
  id: row.id,
  name: row.name,
  unit: row.unit,
  current_quantity: fromMilli(row.quantity_milli),
  reorder_level: fromMilli(row.reorder_level_milli),
  reorder_quantity: fromMilli(row.reorder_quantity_milli),
  version: row.version,
  updated_at: row.updated_at,
});

export type InventoryItem = ReturnType<typeof toInventoryItem>;

/** The documented inventory data shape; `id` names this occurrence, `item_id` the stock item. */
const stockData = (movementId: string, item: InventoryItem) => ({
  id: movementId,
  item_id: item.id,
  name: item.name,
  current_quantity: item.current_quantity,
  unit: item.unit,
  reorder_level: item.reorder_level,
  reorder_quantity: item.reorder_quantity,
});

/**
 * Stock of a store: items, recipes that tie menu items to them, and every change as a movement
 * (a delta), written with its outbox rows and events in one transaction.
 */
export function createInventoryService(deps: {
  db: ApplianceDatabase;
  changes: ChangeLog;
  clock: Clock;
  newId: IdGenerator;
}) {
  const { db, changes, clock } = deps;
  const store = createInventoryStore(db);

  function requireItem(id: string) {
    const row = store.item(id);
    if (!row) throw errors.inventoryItemNotFound();
    return row;
  }

  /** Applies one delta; says so with inventory.updated, and low or out of stock when it crosses. */
  function move(itemId: string, kind: MovementRow['kind'], deltaMilli: number, reference: string | null) {
    const before = requireItem(itemId);
    const at = clock.now().toISOString();
    const after = store.move(itemId, deltaMilli);
    const movement = {
      id: deps.newId(),
      inventory_item_id: itemId,
      kind,
      delta_milli: deltaMilli,
      reference,
      created_at: at,
    };
    store.insertMovement(movement);
    changes.recordChange({
      table: 'inventory_movements',
      rowId: movement.id,
      operation: 'insert',
      version: 1,
    });
    const item = toInventoryItem(after);
    changes.emit('inventory.updated', {
      ...stockData(movement.id, item),
      change: fromMilli(deltaMilli),
      reason: kind,
    });
    if (after.quantity_milli <= 0 && before.quantity_milli > 0)
      changes.emit('inventory.out_of_stock', stockData(movement.id, item));
    else if (
      after.quantity_milli < after.reorder_level_milli &&
      before.quantity_milli >= before.reorder_level_milli
    ) {
      changes.emit('inventory.low_stock', stockData(movement.id, item));
    }
    return item;
  }

  function checkQuantity(field: string, value: number, allowZero = true) {
    if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
      throw errors.invalid(field, 'must be a positive number');
  }

  return {
    list: () => store.items().map(toInventoryItem),
    get: (id: string) => toInventoryItem(requireItem(id)),

    create(input: {
      name: string;
      unit: Unit;
      quantity?: number;
      reorder_level?: number;
      reorder_quantity?: number;
    }) {
      const name = input.name.trim();
      if (name === '') throw errors.invalid('body.name', 'must not be empty');
      if (!(UNITS as readonly string[]).includes(input.unit))
        throw errors.invalid('body.unit', `must be one of ${UNITS.join(', ')}`);
      for (const field of ['quantity', 'reorder_level', 'reorder_quantity'] as const)
        checkQuantity(`body.${field}`, input[field] ?? 0);
      return db.transaction(() => {
        if (store.nameTaken(name)) throw errors.nameTaken();
        const row: InventoryItemRow = {
          id: deps.newId(),
          name,
          unit: input.unit,
          quantity_milli: 0,
          reorder_level_milli: toMilli(input.reorder_level ?? 0),
          reorder_quantity_milli: toMilli(input.reorder_quantity ?? 0),
          version: 1,
          updated_at: clock.now().toISOString(),
        };
        store.insertItem(row);
        changes.recordChange({ table: 'inventory_items', rowId: row.id, operation: 'insert', version: 1 });
        // The opening stock is a count like any other, so the cloud's sum of movements includes it.
        const quantity = toMilli(input.quantity ?? 0);
        return quantity === 0 ? toInventoryItem(row) : move(row.id, 'count', quantity, null);
      })();
    },

    /** What one portion of a menu item uses; replaces the previous recipe. */
    setRecipe(menuItemId: string, components: Array<{ inventory_item_id: string; quantity: number }>) {
      for (const [i, c] of components.entries())
        checkQuantity(`body.components.${i}.quantity`, c.quantity, false);
      return db.transaction(() => {
        components.forEach((c, i) => {
          if (!store.item(c.inventory_item_id))
            throw errors.invalid(`body.components.${i}.inventory_item_id`, 'is not a stock item');
        });
        const version = store.replaceRecipe(
          menuItemId,
          components.map((c) => ({
            inventory_item_id: c.inventory_item_id,
            quantity_milli: toMilli(c.quantity),
          })),
        );
        changes.recordChange({
          table: 'recipes',
          rowId: menuItemId,
          operation: version === 1 ? 'insert' : 'update',
          version,
          fields: store.recipeRow(menuItemId),
        });
        return store
          .recipe(menuItemId)
          .map((c) => ({ inventory_item_id: c.inventory_item_id, quantity: fromMilli(c.quantity_milli) }));
      })();
    },

    /** Deducts a sale through its recipes, once per order however often it is asked. */
    deductSale(orderId: string, lines: Array<{ menu_item_id: string; quantity: number }>) {
      return db.transaction(() => {
        if (store.saleRecorded(orderId)) return [];
        const usage = new Map<string, number>();
        for (const line of lines) {
          for (const c of store.recipe(line.menu_item_id)) {
            usage.set(
              c.inventory_item_id,
              (usage.get(c.inventory_item_id) ?? 0) + c.quantity_milli * line.quantity,
            );
          }
        }
        return [...usage].map(([itemId, milli]) => move(itemId, 'sale', -milli, orderId));
      })();
    },

    /**
     * Puts back what a voided sale took, once per order: the very deltas recorded (recipes may
     * have changed since). A restock referencing the order, since a sale is once per order and
     * item (inventory_sale_once) and movements are never edited.
     */
    returnSale(orderId: string) {
      return db.transaction(() => {
        if (store.saleReturned(orderId)) return [];
        return store
          .saleUsage(orderId)
          .filter((usage) => usage.delta_milli !== 0)
          .map((usage) => move(usage.inventory_item_id, 'restock', -usage.delta_milli, orderId));
      })();
    },

    restock(itemId: string, quantity: number) {
      checkQuantity('body.quantity', quantity, false);
      return db.transaction(() => move(itemId, 'restock', toMilli(quantity), null))();
    },

    /** A physical count: records the difference from what the system believed. */
    count(itemId: string, counted: number) {
      checkQuantity('body.quantity', counted);
      return db.transaction(() =>
        move(itemId, 'count', toMilli(counted) - requireItem(itemId).quantity_milli, null),
      )();
    },
  };
}

export type InventoryService = ReturnType<typeof createInventoryService>;
