/**
 * How the appliance's process speaks to whatever runs it: Node's flags and the exit codes. Kept
 * apart from main.ts so the launcher (appliance/fleet/launcher.ts) and the build can import them
 * without loading a whole appliance.
 */

/**
 * Node's flags for the appliance in production: the young generation held to 4 MB semi-spaces
 * (V8 lets it grow to 16 MB each under load), which keeps a busy store broker some 20 MB smaller
 * for about a tenth of its saturated throughput (`npm run bench -- mqtt`). package.json's
 * `appliance:prod` passes the same flags; a test holds the two together.
 */
export const APPLIANCE_NODE_FLAGS = ['--max-semi-space-size=4'] as const;

/** The exit code that asks the supervisor (systemd, a container runtime) to start the appliance again. */
export const RESTART_EXIT_CODE = 75;
