import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 19,
  name: 'orders-newest-first',
  up(db) {
    db.exec(`
      -- The kiosk's and the POS's order list pages newest first across days by (created_at, id):
      -- without this index every page sorted the whole table.
      create index orders_created_at_id on orders (created_at, id);
    `);
  },
};
