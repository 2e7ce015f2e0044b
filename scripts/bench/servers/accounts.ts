/** The accounts the bench cloud seeds and the bench logs in with. */
export const BENCH_USER = { email: 'bench@bench.test', password: 'bench-password-1' };

/** Staff for the login measurement: one per connection, at most this many connections. */
export const BENCH_STAFF_COUNT = 8;
export const benchStaff = (n: number) => ({
  email: `staff-${n}@bench.test`,
  password: `staff-password-${n}`,
});
