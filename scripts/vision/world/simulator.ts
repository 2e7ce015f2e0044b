/**
 * The seeded drive-thru simulator: pure, no I/O. Cars arrive (Poisson), queue along the lane keeping
 * their spacing, order at the menu board, pay, pick up (or are pulled forward to the bay when their
 * food is late), and leave; cars arriving to a long queue may balk onto the street. People walk the
 * sidewalk. The output is sampled at the clip's fps with times relative to the clip's start.
 */
import { pointInPolygon } from './geometry.ts';
import { LAYOUT, QUEUE_ZONES, type RouteName, ZONE_NAMES, type ZoneName } from './layout.ts';
import { createRng, type Rng } from './rng.ts';
import { randomLook, VEHICLE_DIMENSIONS, type VehicleLook } from './vehicles.ts';

export interface ServiceTime {
  mean: number;
  cv: number;
}

export interface LaneConfig {
  seed: number;
  seconds: number;
  fps: number;
  /** Simulated before the clip starts, so a clip can open with a queue. */
  warmupSeconds: number;
  arrivalsPerHour: number;
  order: ServiceTime;
  pay: ServiceTime;
  /** Kitchen time from a completed order to the food being ready. */
  prep: ServiceTime;
  handoff: ServiceTime;
  /** A car whose food is further off than this when it reaches the window is pulled forward. */
  pullForwardAfterSeconds: number;
  bayCapacity: number;
  /** Arrivals that find at least this many cars in the queue may balk. */
  balkQueueLength: number;
  balkProbability: number;
  peoplePerMinute: number;
}

export const DEFAULT_LANE_CONFIG: Omit<LaneConfig, 'seed'> = {
  seconds: 60,
  fps: 10,
  warmupSeconds: 45,
  arrivalsPerHour: 150,
  order: { mean: 22, cv: 0.45 },
  pay: { mean: 10, cv: 0.35 },
  prep: { mean: 40, cv: 0.5 },
  handoff: { mean: 5, cv: 0.3 },
  pullForwardAfterSeconds: 25,
  bayCapacity: 2,
  balkQueueLength: 5,
  balkProbability: 0.7,
  peoplePerMinute: 1.5,
};

export type CarEventName =
  | 'arrived'
  | 'order_started'
  | 'ordered'
  | 'pay_started'
  | 'paid'
  | 'pickup_started'
  | 'pulled_forward'
  | 'picked_up'
  | 'balked'
  | 'left';

export interface ZoneVisit {
  enter: number;
  exit?: number;
}

export interface SimCar {
  id: number;
  look: VehicleLook;
  route: RouteName;
  events: Partial<Record<CarEventName, number>>;
  zones: Partial<Record<ZoneName, ZoneVisit>>;
  /** When the car's ground point was in the queue zones (entry through pickup window). */
  queue?: ZoneVisit;
}

export interface SimVehicleState {
  id: number;
  class: 'vehicle';
  look: VehicleLook;
  x: number;
  y: number;
  gx: number;
  gz: number;
}

export interface SimPersonState {
  id: number;
  class: 'person';
  x: number;
  y: number;
  /** Walking direction (+1 right) and stride phase, for the legs. */
  dir: number;
  phase: number;
  shirt: string;
}

export type SimObjectState = SimVehicleState | SimPersonState;

export interface SimFrame {
  t: number;
  objects: SimObjectState[];
}

export interface LaneSimulation {
  config: LaneConfig;
  frames: SimFrame[];
  cars: SimCar[];
  /** Cars in the queue zones at the start of each whole second of the clip. */
  queueLengthPerSecond: number[];
}

type Phase =
  | 'to_menu'
  | 'ordering'
  | 'to_pay'
  | 'paying'
  | 'to_pickup'
  | 'at_pickup'
  | 'to_bay'
  | 'in_bay'
  | 'leaving';

interface MovingCar {
  car: SimCar;
  s: number;
  v: number;
  length: number;
  phase: Phase;
  until: number;
  foodReadyAt: number;
}

interface Walker {
  state: SimPersonState;
  speedPx: number;
}

const GAP = 1.4;
const MAX_UNSEEN_BACKLOG = 2;
const ACCEL = 2.2;
const DECEL = 3.5;
const LANE_SPEED = 3.5;
const OPEN_SPEED = 6;
const SHIRTS = ['#c0392b', '#2c3e50', '#27ae60', '#f39c12', '#8e44ad', '#ecf0f1', '#16a085', '#7f8c8d'];

interface SimState {
  config: LaneConfig;
  rng: Rng;
  lookRng: Rng;
  peopleRng: Rng;
  t: number;
  nextId: number;
  nextArrival: number;
  pending: number;
  nextPerson: number;
  cars: MovingCar[];
  walkers: Walker[];
  allCars: SimCar[];
}

/** How far along two routes the ground is shared. */
function sharedUntil(a: RouteName, b: RouteName): number {
  if (a === b) return Number.POSITIVE_INFINITY;
  if (a === 'balk' || b === 'balk') return LAYOUT.balkBranch;
  return LAYOUT.bayBranch;
}

function queueLength(cars: readonly MovingCar[]): number {
  return cars.filter((c) => c.car.queue && c.car.queue.exit === undefined).length;
}

function spawnCar(st: SimState): void {
  const last = st.cars.reduce((min, c) => Math.min(min, c.s - c.length), Number.POSITIVE_INFINITY);
  const look = randomLook(st.lookRng);
  const length = VEHICLE_DIMENSIONS[look.kind].length;
  if (last < length + GAP) return;
  const balks = queueLength(st.cars) >= st.config.balkQueueLength && st.rng.chance(st.config.balkProbability);
  const car: SimCar = {
    id: st.nextId++,
    look,
    route: balks ? 'balk' : 'lane',
    events: { arrived: st.t },
    zones: {},
  };
  st.pending--;
  st.allCars.push(car);
  st.cars.push({
    car,
    s: 0,
    v: OPEN_SPEED * 0.6,
    length,
    phase: balks ? 'leaving' : 'to_menu',
    until: 0,
    foodReadyAt: 0,
  });
}

function phaseStop(c: MovingCar): number {
  switch (c.phase) {
    case 'to_menu':
    case 'ordering':
      return LAYOUT.stops.menu;
    case 'to_pay':
    case 'paying':
      return LAYOUT.stops.pay;
    case 'to_pickup':
    case 'at_pickup':
      return LAYOUT.stops.pickup;
    case 'to_bay':
    case 'in_bay':
      return LAYOUT.stops.bay;
    default:
      return Number.POSITIVE_INFINITY;
  }
}

function leaderLimit(c: MovingCar, cars: readonly MovingCar[]): number {
  let limit = Number.POSITIVE_INFINITY;
  for (const other of cars) {
    if (other === c || other.s <= c.s) continue;
    const rear = other.s - other.length;
    if (rear > sharedUntil(c.car.route, other.car.route) + 0.5) continue;
    limit = Math.min(limit, rear - GAP);
  }
  return limit;
}

function atStop(st: SimState, c: MovingCar): void {
  const { config: cfg, rng, t } = st;
  const ev = c.car.events;
  switch (c.phase) {
    case 'to_menu':
      ev.order_started = t;
      c.phase = 'ordering';
      c.until = t + rng.lognormal(cfg.order.mean, cfg.order.cv);
      return;
    case 'to_pay':
      ev.pay_started = t;
      c.phase = 'paying';
      c.until = t + rng.lognormal(cfg.pay.mean, cfg.pay.cv);
      return;
    case 'to_pickup':
      ev.pickup_started = t;
      if (c.foodReadyAt - t > cfg.pullForwardAfterSeconds && bayCount(st) < cfg.bayCapacity) {
        ev.pulled_forward = t;
        c.car.route = 'bay';
        c.phase = 'to_bay';
        return;
      }
      c.phase = 'at_pickup';
      c.until = Math.max(t, c.foodReadyAt) + rng.lognormal(cfg.handoff.mean, cfg.handoff.cv);
      return;
    default:
      return;
  }
}

function bayCount(st: SimState): number {
  return st.cars.filter((c) => c.phase === 'to_bay' || c.phase === 'in_bay').length;
}

function serviceDone(st: SimState, c: MovingCar): void {
  const ev = c.car.events;
  if (c.phase === 'ordering') {
    ev.ordered = st.t;
    c.foodReadyAt = st.t + st.rng.lognormal(st.config.prep.mean, st.config.prep.cv);
    c.phase = 'to_pay';
  } else if (c.phase === 'paying') {
    ev.paid = st.t;
    c.phase = 'to_pickup';
  } else {
    ev.picked_up = st.t;
    c.phase = 'leaving';
  }
}

/** Cars in the bay stop where they can (at the bay's head or behind the car there) and wait for food. */
function updateBay(st: SimState, c: MovingCar): void {
  if (c.phase === 'to_bay' && c.v < 0.05 && c.s > LAYOUT.bayBranch + 6) {
    c.phase = 'in_bay';
    c.until = Math.max(st.t, c.foodReadyAt) + st.rng.lognormal(st.config.handoff.mean, st.config.handoff.cv);
  }
}

function moveCar(st: SimState, c: MovingCar, dt: number): void {
  const waiting =
    c.phase === 'ordering' || c.phase === 'paying' || c.phase === 'at_pickup' || c.phase === 'in_bay';
  if (waiting && st.t >= c.until) serviceDone(st, c);
  const stop = phaseStop(c);
  const limit = Math.min(stop, leaderLimit(c, st.cars));
  const vmax = c.phase === 'leaving' && c.s > LAYOUT.stops.pickup ? OPEN_SPEED : LANE_SPEED;
  const room = limit - c.s;
  const vTarget = room <= 0.02 ? 0 : Math.min(vmax, Math.sqrt(2 * DECEL * room));
  c.v = vTarget > c.v ? Math.min(vTarget, c.v + ACCEL * dt) : vTarget;
  c.s = Math.min(c.s + c.v * dt, Math.max(c.s, limit));
  if (stop === limit && c.s >= stop - 0.05 && !waiting) {
    c.s = stop;
    c.v = 0;
    atStop(st, c);
  }
  updateBay(st, c);
}

function anchorOfCar(c: MovingCar): { x: number; y: number; gx: number; gz: number } {
  return LAYOUT.routes[c.car.route].at(c.s);
}

function trackZones(st: SimState, c: MovingCar): void {
  const p = anchorOfCar(c);
  let inQueue = false;
  for (const name of ZONE_NAMES) {
    const inside = pointInPolygon([p.x, p.y], LAYOUT.zones[name]);
    const visit = c.car.zones[name];
    if (inside && !visit) c.car.zones[name] = { enter: st.t };
    if (!inside && visit && visit.exit === undefined) visit.exit = st.t;
    if (inside && QUEUE_ZONES.includes(name)) inQueue = true;
  }
  const q = c.car.queue;
  if (inQueue && !q) c.car.queue = { enter: st.t };
  if (!inQueue && q && q.exit === undefined) q.exit = st.t;
  if (c.car.route === 'balk' && c.car.events.balked === undefined && c.s > LAYOUT.balkBranch) {
    c.car.events.balked = st.t;
  }
}

function stepCars(st: SimState, dt: number): void {
  while (st.nextArrival <= st.t) {
    // Drivers who cannot even turn in (the lane is backed up off-screen) drive on unseen.
    st.pending = Math.min(st.pending + 1, MAX_UNSEEN_BACKLOG);
    st.nextArrival += st.rng.exponential(3600 / st.config.arrivalsPerHour);
  }
  if (st.pending > 0) spawnCar(st);
  for (const c of [...st.cars].sort((a, b) => b.s - a.s)) moveCar(st, c, dt);
  for (const c of st.cars) trackZones(st, c);
  for (const c of st.cars) {
    if (c.s >= LAYOUT.routes[c.car.route].length - 0.01) c.car.events.left = st.t;
  }
  st.cars = st.cars.filter((c) => c.car.events.left === undefined);
}

function stepPeople(st: SimState, dt: number): void {
  if (st.t >= st.nextPerson) {
    st.nextPerson = st.t + st.peopleRng.exponential(60 / Math.max(st.config.peoplePerMinute, 1e-6));
    const dir = st.peopleRng.chance(0.5) ? 1 : -1;
    st.walkers.push({
      state: {
        id: st.nextId++,
        class: 'person',
        x: dir > 0 ? -20 : 660,
        y: LAYOUT.sidewalkY - st.peopleRng.range(0, 3),
        dir,
        phase: st.peopleRng.range(0, Math.PI * 2),
        shirt: st.peopleRng.pick(SHIRTS),
      },
      speedPx: st.peopleRng.range(1.1, 1.6) * 19.5,
    });
  }
  for (const w of st.walkers) {
    w.state.x += w.state.dir * w.speedPx * dt;
    w.state.phase += dt * 7;
  }
  st.walkers = st.walkers.filter((w) => w.state.x > -30 && w.state.x < 670);
}

function snapshot(st: SimState, clipT: number): SimFrame {
  const objects: SimObjectState[] = [];
  for (const c of st.cars) {
    const p = anchorOfCar(c);
    objects.push({ id: c.car.id, class: 'vehicle', look: c.car.look, x: p.x, y: p.y, gx: p.gx, gz: p.gz });
  }
  for (const w of st.walkers) objects.push({ ...w.state });
  return { t: clipT, objects };
}

export function simulateLane(config: LaneConfig): LaneSimulation {
  const rng = createRng(config.seed, 'traffic');
  const peopleRng = createRng(config.seed, 'people');
  const st: SimState = {
    config,
    rng,
    lookRng: createRng(config.seed, 'looks'),
    peopleRng,
    t: -config.warmupSeconds,
    nextId: 1,
    nextArrival: -config.warmupSeconds + rng.exponential(3600 / config.arrivalsPerHour),
    pending: 0,
    nextPerson: -config.warmupSeconds + peopleRng.exponential(60 / Math.max(config.peoplePerMinute, 1e-6)),
    cars: [],
    walkers: [],
    allCars: [],
  };
  const substeps = Math.max(1, Math.ceil(20 / config.fps));
  const dt = 1 / (config.fps * substeps);
  const warmupFrames = Math.round(config.warmupSeconds * config.fps);
  const totalFrames = Math.round(config.seconds * config.fps);
  const frames: SimFrame[] = [];
  const queueLengthPerSecond: number[] = [];
  for (let k = -warmupFrames; k < totalFrames; k++) {
    st.t = k / config.fps;
    if (k >= 0) frames.push(snapshot(st, st.t));
    if (k >= 0 && k % config.fps === 0) queueLengthPerSecond.push(queueLength(st.cars));
    // Each step advances the clock first, so an event is stamped with the time its position holds.
    for (let i = 0; i < substeps; i++) {
      st.t += dt;
      stepCars(st, dt);
      stepPeople(st, dt);
    }
  }
  const end = totalFrames / config.fps;
  const cars = st.allCars.filter((c) => (c.events.left ?? end) >= 0 && (c.events.arrived ?? 0) < end);
  return { config, frames, cars, queueLengthPerSecond };
}
