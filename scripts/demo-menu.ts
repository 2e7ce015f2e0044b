/**
 * The demo brand's menu, stock, recipes and kitchen for `npm start`, made as head office makes
 * them: through the cloud's commerce API, signed in as the demo tenant's admin. The demo store's
 * appliance receives them by sync like any store of the brand, so every `npm start` goes the way a
 * new restaurant group's first store does. Made once; later starts find the brand's menu in place.
 */

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

/** The brand's stock items, with what the demo store counts on its opening day. */
export const DEMO_STOCK = [
  { name: 'Beef patty', unit: 'each', opening: 120, reorder_level: 30, reorder_quantity: 100 },
  { name: 'Bun', unit: 'each', opening: 120, reorder_level: 30, reorder_quantity: 100 },
  { name: 'Cheese slice', unit: 'each', opening: 200, reorder_level: 40, reorder_quantity: 200 },
  { name: 'Potatoes', unit: 'kg', opening: 25, reorder_level: 5, reorder_quantity: 25 },
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

/** How many menu items the demo brand has, for waiting until a store holds them all. */
export const DEMO_MENU_SIZE = MENU.reduce((sum, group) => sum + group.items.length, 0);

const milli = (units: number) => Math.round(units * 1000);

export async function seedDemoMenu(cloudUrl: string, admin: { email: string; password: string }) {
  const signIn = await fetch(`${cloudUrl}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: admin.email, password: admin.password }),
  });
  const token = ((await signIn.json()) as { status: { access_token: string } }).status.access_token;
  async function call<T = { id: string }>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${cloudUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as { data: T };
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer.data;
  }

  const brands = await call<Array<{ id: string }>>('GET', '/v1/platform/brands');
  const brandId = brands[0]!.id;
  const existing = await call<{ items: unknown[] }>(
    'GET',
    `/v1/commerce/menu/categories?brand_id=${brandId}`,
  );
  if (existing.items.length > 0) return;

  const stock = new Map<string, string>();
  for (const item of DEMO_STOCK) {
    const created = await call('POST', '/v1/commerce/stock/items', {
      brand_id: brandId,
      name: item.name,
      unit: item.unit,
      reorder_level_milli: milli(item.reorder_level),
      reorder_quantity_milli: milli(item.reorder_quantity),
    });
    stock.set(item.name, created.id);
  }
  for (const [position, group] of MENU.entries()) {
    const station = await call('POST', '/v1/commerce/kitchen/stations', {
      brand_id: brandId,
      name: group.station,
      position,
    });
    const category = await call('POST', '/v1/commerce/menu/categories', {
      brand_id: brandId,
      name: group.category,
      position,
    });
    for (const [name, price] of group.items) {
      const item = await call('POST', '/v1/commerce/menu/items', {
        brand_id: brandId,
        category_id: category.id,
        name,
        price_minor: price,
      });
      await call('PUT', `/v1/commerce/kitchen/routing/${item.id}`, { station_id: station.id });
      const recipe = RECIPES[name];
      if (recipe)
        await call('PUT', `/v1/commerce/menu/items/${item.id}/recipe`, {
          components: recipe.map(([stockName, quantity]) => ({
            stock_item_id: stock.get(stockName)!,
            quantity_milli: milli(quantity),
          })),
        });
    }
  }
}
