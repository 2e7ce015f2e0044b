/** The billing admin the usage bench cloud seeds and the bench signs in as. */
export const USAGE_BENCH_USER = { email: 'billing@bench.test', password: 'bench-password-1' };
