import { describe, expect, it } from 'vitest';
import {
  createMenuMapping,
  MenuMappingError,
  resolveMenuMapping,
  TRAY_CLASSES,
} from '../../../../appliance/vision/verify/mapping.ts';
import { TRAY_ITEMS } from '../../../../scripts/vision/world/tray-items.ts';

describe('menu mapping', () => {
  it('knows the tray model classes of the synthetic world, and maps each demo item to its own', () => {
    expect(TRAY_CLASSES).toEqual(TRAY_ITEMS);
    const mapping = resolveMenuMapping();
    for (const item of TRAY_ITEMS) {
      expect(mapping.classOf(item)).toBe(item);
      expect(mapping.itemOf(item)).toBe(item);
    }
    expect(mapping.classOf(' classic   burger ')).toBe('Classic Burger');
    expect(mapping.classOf('Apple Pie')).toBeUndefined();
  });

  it('lays a configuration over the defaults: added, replaced in any spelling, removed by null', () => {
    const mapping = resolveMenuMapping({ 'Diet Soda': 'soda', fries: 'Onion Rings', Milkshake: null });
    expect(mapping.classOf('Diet Soda')).toBe('Soda');
    expect(mapping.classOf('Fries')).toBe('Onion Rings');
    expect(mapping.classOf('Milkshake')).toBeUndefined();
    expect(mapping.itemOf('Soda')).toBe('Soda');
    expect(mapping.itemOf('Milkshake')).toBeUndefined();
  });

  it('refuses a class the model does not know, naming it', () => {
    expect(() => resolveMenuMapping({ 'Apple Pie': 'Pie' })).toThrow(MenuMappingError);
    expect(() => resolveMenuMapping({ 'Apple Pie': 'Pie' })).toThrow(
      /"Apple Pie" maps to "Pie", which is not a class/,
    );
    expect(() => createMenuMapping({ Fries: 'Fries' }, ['fries_box'])).toThrow(/classes: fries_box/);
  });

  it('refuses a configuration of the wrong shape and an item mapped twice', () => {
    expect(() => resolveMenuMapping({ Fries: 3 })).toThrow(/configuration is invalid: \/Fries/);
    expect(() => resolveMenuMapping(['Fries'])).toThrow(MenuMappingError);
    expect(() => createMenuMapping({ Fries: 'Fries', ' fries': 'Soda' })).toThrow(/mapped twice/);
  });
});
