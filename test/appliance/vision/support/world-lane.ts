import type { LaneZones } from '../../../../appliance/vision/drive-thru/lane.ts';
import { QUEUE_ZONES, zonesFor } from '../../../../scripts/vision/world/layout.ts';

/** The synthetic world's lane as a lane camera is configured: its zones at this size and their roles. */
export const worldLane = (width: number, height: number): LaneZones => ({
  zones: zonesFor(width, height),
  queue: QUEUE_ZONES,
  menu: 'menu',
  pay: 'pay',
  pickup: 'pickup',
  bay: 'bay',
  bypass: 'bypass',
});
