/**
 * The fixed camera view of the drive-thru, in reference pixels (640x360): the routes cars drive, the
 * stops where they are served, the zones the analytics judge them by, and what stands in front of
 * the lane. Everything else scales from here to the output size.
 */
import {
  bandPolygon,
  createPath,
  type GroundPath,
  type Point,
  REFERENCE_HEIGHT,
  REFERENCE_WIDTH,
} from './geometry.ts';

const APPROACH: Point[] = [
  [700, 318],
  [605, 305],
];
const LANE: Point[] = [
  [560, 288],
  [515, 262],
  [480, 232],
  [450, 212],
  [410, 199],
  [340, 190],
  [270, 187],
  [200, 185],
  [140, 184],
];
const EXIT: Point[] = [
  [90, 183],
  [20, 182],
  [-90, 180],
];
const BAY: Point[] = [
  [105, 186],
  [78, 200],
  [64, 225],
  [58, 260],
  [55, 300],
  [52, 340],
  [48, 440],
];
const BYPASS: Point[] = [
  [560, 318],
  [480, 326],
  [300, 336],
  [-100, 346],
];

export type RouteName = 'lane' | 'bay' | 'balk';

/** The zones of the view; the queue is `QUEUE_ZONES`, from the lane's entry to the pickup window. */
export const ZONE_NAMES = [
  'entry',
  'menu',
  'menu_to_pay',
  'pay',
  'pay_to_pickup',
  'pickup',
  'bay',
  'exit',
  'bypass',
] as const;
export type ZoneName = (typeof ZONE_NAMES)[number];
export const QUEUE_ZONES: readonly ZoneName[] = [
  'entry',
  'menu',
  'menu_to_pay',
  'pay',
  'pay_to_pickup',
  'pickup',
];

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LaneLayout {
  routes: Record<RouteName, GroundPath>;
  /** Where each route leaves the shared lane (metres along the route). */
  balkBranch: number;
  bayBranch: number;
  stops: { menu: number; pay: number; pickup: number; bay: number };
  zones: Record<ZoneName, Point[]>;
  /** A pole and its sign, drawn in front of anything whose ground point is above `baseY`. */
  occluder: { baseY: number; rects: Rect[] };
  sidewalkY: number;
  /** Window and board positions for the renderer. */
  menuBoard: Rect;
  payWindow: Rect;
  pickupWindow: Rect;
}

const ZONE_HALF_WIDTH = 2.2;
const WINDOW_REACH = 3;

function buildLayout(): LaneLayout {
  const lane = createPath([...APPROACH, ...LANE, ...EXIT]);
  const bay = createPath([...APPROACH, ...LANE, ...BAY]);
  const balk = createPath([...APPROACH, ...BYPASS]);
  const balkBranch = lane.project(APPROACH[1]!);
  const bayBranch = lane.project(LANE[LANE.length - 1]!);
  const stops = {
    menu: lane.project([440, 208]),
    pay: lane.project([270, 187]),
    pickup: lane.project([140, 184]),
    bay: bay.project([55, 300]),
  };
  const entryStart = lane.project(LANE[0]!);
  const band = (path: GroundPath, from: number, to: number) => bandPolygon(path, from, to, ZONE_HALF_WIDTH);
  const zones: Record<ZoneName, Point[]> = {
    entry: band(lane, entryStart, stops.menu - WINDOW_REACH),
    menu: band(lane, stops.menu - WINDOW_REACH, stops.menu + WINDOW_REACH),
    menu_to_pay: band(lane, stops.menu + WINDOW_REACH, stops.pay - WINDOW_REACH),
    pay: band(lane, stops.pay - WINDOW_REACH, stops.pay + WINDOW_REACH),
    pay_to_pickup: band(lane, stops.pay + WINDOW_REACH, stops.pickup - WINDOW_REACH),
    pickup: band(lane, stops.pickup - WINDOW_REACH, stops.pickup + WINDOW_REACH),
    bay: band(bay, stops.pickup + WINDOW_REACH, bay.project([53, 330])),
    exit: band(lane, stops.pickup + WINDOW_REACH, lane.project([-2, 182])),
    bypass: band(balk, balkBranch + 2, balk.project([-2, 346])),
  };
  return {
    routes: { lane, bay, balk },
    balkBranch,
    bayBranch,
    stops,
    zones,
    occluder: {
      baseY: 300,
      rects: [
        { x: 352, y: 70, width: 6, height: 230 },
        { x: 333, y: 44, width: 44, height: 30 },
      ],
    },
    sidewalkY: 357,
    menuBoard: { x: 418, y: 150, width: 48, height: 34 },
    payWindow: { x: 252, y: 100, width: 36, height: 40 },
    pickupWindow: { x: 122, y: 100, width: 36, height: 40 },
  };
}

export const LAYOUT: LaneLayout = buildLayout();

/** The zones in output pixels, clamped to the frame, for the truth file and the pipeline's config. */
export function zonesFor(width: number, height: number): Record<ZoneName, Array<[number, number]>> {
  const sx = width / REFERENCE_WIDTH;
  const sy = height / REFERENCE_HEIGHT;
  const clamp = (v: number, max: number) => Math.round(Math.min(max, Math.max(0, v)) * 10) / 10;
  const out = {} as Record<ZoneName, Array<[number, number]>>;
  for (const name of ZONE_NAMES) {
    out[name] = LAYOUT.zones[name].map(([x, y]) => [clamp(x * sx, width), clamp(y * sy, height)]);
  }
  return out;
}
