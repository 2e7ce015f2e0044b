import type { ApplianceDatabase } from '../db/index.ts';

export interface MenuCategory {
  id: string;
  name: string;
  position: number;
  version: number;
  updated_at: string;
}

export interface MenuItem {
  id: string;
  category_id: string;
  name: string;
  description: string;
  price_minor: number;
  available: boolean;
  version: number;
  updated_at: string;
}

/** What the orders module needs to price a line: the name and price at the moment of ordering. */
export interface OrderableItem {
  id: string;
  name: string;
  price_minor: number;
  available: boolean;
}

type ItemRow = Omit<MenuItem, 'available'> & { available: number };

const fromItemRow = (row: ItemRow): MenuItem => ({ ...row, available: row.available === 1 });
const toItemRow = (item: MenuItem): ItemRow => ({ ...item, available: item.available ? 1 : 0 });

const CATEGORY_COLUMNS = 'id, name, position, version, updated_at';
const ITEM_COLUMNS = 'id, category_id, name, description, price_minor, available, version, updated_at';

export function createMenuStore(db: ApplianceDatabase) {
  const statements = {
    insertCategory: db.prepare(
      'insert into menu_categories (id, name, position, version, updated_at) values (@id, @name, @position, @version, @updated_at)',
    ),
    updateCategory: db.prepare(
      'update menu_categories set name = @name, position = @position, version = @version, updated_at = @updated_at where id = @id',
    ),
    getCategory: db.prepare(`select ${CATEGORY_COLUMNS} from menu_categories where id = ?`),
    findCategoryByName: db.prepare(`select ${CATEGORY_COLUMNS} from menu_categories where name = ?`),
    listCategories: db.prepare(`select ${CATEGORY_COLUMNS} from menu_categories order by position, name`),
    nextPosition: db.prepare('select coalesce(max(position) + 1, 0) as position from menu_categories'),
    insertItem: db.prepare(
      `insert into menu_items (${ITEM_COLUMNS}) values (@id, @category_id, @name, @description, @price_minor, @available, @version, @updated_at)`,
    ),
    updateItem: db.prepare(
      `update menu_items set category_id = @category_id, name = @name, description = @description,
         price_minor = @price_minor, available = @available, version = @version, updated_at = @updated_at
       where id = @id`,
    ),
    getItem: db.prepare(`select ${ITEM_COLUMNS} from menu_items where id = ?`),
    listItems: db.prepare(`select ${ITEM_COLUMNS} from menu_items order by name, id`),
    listItemsInCategory: db.prepare(
      `select ${ITEM_COLUMNS} from menu_items where category_id = ? order by name, id`,
    ),
    itemsByIds: db.prepare(
      'select id, name, price_minor, available from menu_items where id in (select value from json_each(?))',
    ),
  };

  return {
    insertCategory: (category: MenuCategory) => void statements.insertCategory.run(category),
    updateCategory: (category: MenuCategory) => void statements.updateCategory.run(category),
    getCategory: (id: string) => statements.getCategory.get(id) as MenuCategory | undefined,
    /** Case-insensitive, like the column's unique index. */
    findCategoryByName: (name: string) => statements.findCategoryByName.get(name) as MenuCategory | undefined,
    listCategories: () => statements.listCategories.all() as MenuCategory[],
    nextCategoryPosition: () => (statements.nextPosition.get() as { position: number }).position,
    insertItem: (item: MenuItem) => void statements.insertItem.run(toItemRow(item)),
    updateItem: (item: MenuItem) => void statements.updateItem.run(toItemRow(item)),
    getItem: (id: string) => {
      const row = statements.getItem.get(id) as ItemRow | undefined;
      return row && fromItemRow(row);
    },
    listItems: (categoryId?: string) => {
      const rows = (
        categoryId === undefined ? statements.listItems.all() : statements.listItemsInCategory.all(categoryId)
      ) as ItemRow[];
      return rows.map(fromItemRow);
    },
    itemsByIds: (ids: readonly string[]) => {
      const rows = statements.itemsByIds.all(JSON.stringify(ids)) as Array<
        Omit<OrderableItem, 'available'> & { available: number }
      >;
      return rows.map((row): OrderableItem => ({ ...row, available: row.available === 1 }));
    },
  };
}

export type MenuStore = ReturnType<typeof createMenuStore>;
