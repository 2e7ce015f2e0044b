import type { ApplianceMigration } from './index.ts';

export const migration: ApplianceMigration = {
  version: 6,
  name: 'payments',
  up(db) {
    db.exec(`
      -- What the terminal's card reader or cash drawer reported; the appliance records, it does not process.
      create table payments (
        id text primary key,
        order_id text not null references orders (id),
        method text not null check (method in ('card', 'cash')),
        status text not null check (status in ('authorized', 'captured', 'voided', 'failed')),
        amount_minor integer not null check (amount_minor > 0),
        tip_minor integer not null check (tip_minor >= 0),
        refunded_minor integer not null default 0 check (refunded_minor >= 0),
        card_brand text,
        card_last4 text,
        transaction_id text,
        failure_reason text,
        created_at text not null,
        updated_at text not null,
        version integer not null
      );
      create index payments_order on payments (order_id);
      create unique index payments_transaction on payments (transaction_id) where transaction_id is not null;
    `);
  },
};
