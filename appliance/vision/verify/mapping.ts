/**
 * Which model class stands for each menu item. Many menu items may share a class (a model that sees
 * one cup for "Soda" and "Diet Soda"); an item with no class cannot be checked by the camera. Names
 * are compared case- and whitespace-insensitively; classes are kept as the model spells them.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The tray model's classes (scripts/vision/world/tray-items.ts, in the order it is trained with). */
export const TRAY_CLASSES: readonly string[] = [
  'Classic Burger',
  'Cheeseburger',
  'Fries',
  'Onion Rings',
  'Soda',
  'Milkshake',
];

/** The demo menu (scripts/demo-appliance.ts): each item is drawn as the class of its own name. */
export const DEFAULT_MENU_MAPPING: Readonly<Record<string, string>> = Object.fromEntries(
  TRAY_CLASSES.map((name) => [name, name]),
);

/** Configuration: menu item name → class name, or null to leave an item of the defaults unchecked. */
export const MenuMappingConfigSchema = Type.Record(
  Type.String({ minLength: 1, maxLength: 200 }),
  Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]),
);
export type MenuMappingConfig = Static<typeof MenuMappingConfigSchema>;

export interface MenuMapping {
  /** The model's classes this mapping was checked against. */
  readonly classes: readonly string[];
  /** The class of a menu item, as the model spells it; undefined when the item has none. */
  classOf(item: string): string | undefined;
  /** The menu item a detection of this class is reported as (the first mapped to it); undefined when none is. */
  itemOf(className: string): string | undefined;
}

export class MenuMappingError extends Error {
  override name = 'MenuMappingError';
}

export const normaliseName = (name: string) =>
  name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

const tidy = (name: string) => name.normalize('NFKC').trim().replace(/\s+/g, ' ');

function checkedClass(item: string, className: string, known: ReadonlyMap<string, string>): string {
  const spelled = known.get(normaliseName(className));
  if (spelled !== undefined) return spelled;
  throw new MenuMappingError(
    `menu item "${item}" maps to "${className}", which is not a class of the model (its classes: ${[...known.values()].join(', ')})`,
  );
}

/** A mapping from exactly these entries, every class checked against the model's. */
export function createMenuMapping(
  entries: Readonly<Record<string, string>>,
  classes: readonly string[] = TRAY_CLASSES,
): MenuMapping {
  const known = new Map(classes.map((c) => [normaliseName(c), c]));
  const byItem = new Map<string, string>();
  const byClass = new Map<string, string>();
  for (const [item, className] of Object.entries(entries)) {
    const key = normaliseName(item);
    if (key === '') throw new MenuMappingError('a menu item name in the mapping is blank');
    const spelled = checkedClass(item, className, known);
    const earlier = byItem.get(key);
    if (earlier !== undefined && earlier !== spelled)
      throw new MenuMappingError(`menu item "${item}" is mapped twice, to "${earlier}" and "${spelled}"`);
    byItem.set(key, spelled);
    const classKey = normaliseName(spelled);
    if (!byClass.has(classKey)) byClass.set(classKey, tidy(item));
  }
  return {
    classes,
    classOf: (item) => byItem.get(normaliseName(item)),
    itemOf: (className) => byClass.get(normaliseName(className)),
  };
}

/**
 * The defaults with a configuration's entries laid over them (same item, any spelling, replaced;
 * null removes it). The configuration is checked here, so a bad one fails at start-up.
 */
export function resolveMenuMapping(
  config: unknown = {},
  classes: readonly string[] = TRAY_CLASSES,
  defaults: Readonly<Record<string, string>> = DEFAULT_MENU_MAPPING,
): MenuMapping {
  if (!Value.Check(MenuMappingConfigSchema, config)) {
    const first = [...Value.Errors(MenuMappingConfigSchema, config)][0];
    throw new MenuMappingError(
      `menu mapping configuration is invalid: ${first?.path || '/'} ${first?.message}; expected { "<menu item>": "<class>" | null }`,
    );
  }
  const merged = new Map(Object.entries(defaults).map(([item, c]) => [normaliseName(item), [item, c]]));
  for (const [item, className] of Object.entries(config)) {
    if (className === null) merged.delete(normaliseName(item));
    else merged.set(normaliseName(item), [item, className]);
  }
  return createMenuMapping(Object.fromEntries(merged.values()), classes);
}
