/**
 * The demo store's appliance for `npm start`: its staff come from the cloud's demo tenant (so
 * cloud tokens work there too), with a demo menu, kitchen stations and stock. Seeding runs once;
 * later starts find the store as it was left.
 */
import { createApplianceServices } from '../appliance/app.ts';
import type { ApplianceConfig } from '../appliance/config.ts';
import { openApplianceDb } from '../appliance/db/index.ts';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';

export interface DemoStaff {
  id: string;
  email: string;
  username: string | null;
  display_name: string;
  roles: string;
  pin_hash: string | null;
}

const MENU = [
  {
    category: 'Burgers',
    station: 'Grill',
    items: [
      ['Classic Burger', 899],
      ['Cheeseburger', 949],
    ],
  },
  {
    category: 'Sides',
    station: 'Fryer',
    items: [
      ['Fries', 349],
      ['Onion Rings', 399],
    ],
  },
  {
    category: 'Drinks',
    station: 'Bar',
    items: [
      ['Soda', 199],
      ['Milkshake', 449],
    ],
  },
] as const;

const STOCK = [
  { name: 'Beef patty', unit: 'each', quantity: 120, reorder_level: 30, reorder_quantity: 100 },
  { name: 'Bun', unit: 'each', quantity: 120, reorder_level: 30, reorder_quantity: 100 },
  { name: 'Cheese slice', unit: 'each', quantity: 200, reorder_level: 40, reorder_quantity: 200 },
  { name: 'Potatoes', unit: 'kg', quantity: 25, reorder_level: 5, reorder_quantity: 25 },
] as const;

const RECIPES: Record<string, Array<[string, number]>> = {
  'Classic Burger': [
    ['Beef patty', 1],
    ['Bun', 1],
  ],
  Cheeseburger: [
    ['Beef patty', 1],
    ['Bun', 1],
    ['Cheese slice', 1],
  ],
  Fries: [['Potatoes', 0.2]],
};

export async function seedDemoAppliance(config: ApplianceConfig, staff: DemoStaff[]) {
  const db = openApplianceDb(config.dataDir);
  try {
    const services = createApplianceServices(config, { db, clock: systemClock, newId });
    for (const member of staff) {
      await services.auth.upsertStaff({
        id: member.id,
        email: member.email,
        username: member.username,
        displayName: member.display_name,
        roles: JSON.parse(member.roles) as string[],
        pinHash: member.pin_hash,
        version: 1,
      });
    }
    if (services.menu.listCategories().length > 0) return;
    const stock = new Map<string, string>(
      STOCK.map((item) => [item.name, services.inventory.create(item).id]),
    );
    for (const [position, group] of MENU.entries()) {
      const category = services.menu.createCategory({ name: group.category, position });
      const station = services.kitchen.createStation({ name: group.station });
      for (const [name, price] of group.items) {
        const item = services.menu.createItem({ category_id: category.id, name, price_minor: price });
        services.kitchen.routeItem(item.id, station.id);
        const recipe = RECIPES[name];
        if (recipe)
          services.inventory.setRecipe(
            item.id,
            recipe.map(([stockName, quantity]) => ({ inventory_item_id: stock.get(stockName)!, quantity })),
          );
      }
    }
  } finally {
    db.close();
  }
}
