/** Occupancy: the dining room's people against capacity and the parking lot's spaces, as the documented record. */
export {
  createOccupancy,
  type OccupancyOptions,
  type OccupancyRecord,
  type ParkingSpace,
  type SpaceState,
  utilization,
} from './occupancy.ts';
