/**
 * The service dependency graph correlation and RCA walk: each service names the services it depends
 * on (its upstream). A fault travels downstream, so the root cause of a chain of alerts is its most
 * upstream alerting service.
 */

export type DependencyGraph = Record<string, string[]>;

/** Our own services, for a tenant that has not described its own. */
export const DEFAULT_GRAPH: DependencyGraph = {
  database: [],
  network: [],
  api: ['database'],
  sync: ['database', 'api'],
  fleet: ['network'],
  appliance: ['sync', 'fleet'],
  devices: ['fleet'],
  vision: ['appliance'],
  pos: ['appliance'],
  kds: ['appliance'],
  payments: ['network'],
  notifications: ['api'],
  chat: ['api'],
};

export const SERVICE_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
export const MAX_SERVICES = 500;

/**
 * The problem with a graph, as [field, message], or undefined when it is fine: names, a service
 * depending on itself, and cycles (a cycle has no most-upstream service).
 */
export function graphProblem(entries: Array<{ service: string; depends_on: string[] }>) {
  const seen = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    if (seen.has(entry.service))
      return [`body.services.${i}.service`, `${entry.service} is listed twice`] as const;
    seen.add(entry.service);
    if (entry.depends_on.includes(entry.service))
      return [`body.services.${i}.depends_on`, `${entry.service} cannot depend on itself`] as const;
  }
  const graph = toGraph(entries);
  const cycle = findCycle(graph);
  if (cycle) {
    const i = entries.findIndex((e) => e.service === cycle[0]);
    return [`body.services.${i}.depends_on`, `forms a cycle: ${cycle.join(' → ')}`] as const;
  }
  return undefined;
}

export function toGraph(entries: Array<{ service: string; depends_on: string[] }>): DependencyGraph {
  const graph: DependencyGraph = {};
  for (const entry of entries) graph[entry.service] = [...new Set(entry.depends_on)];
  for (const entry of entries) for (const dep of entry.depends_on) graph[dep] ??= [];
  return graph;
}

function findCycle(graph: DependencyGraph): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const dep of graph[node] ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of Object.keys(graph)) {
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

/**
 * Every service upstream of `service`, with the shortest path to it (from `service` up to it).
 * Breadth first, so the path is a shortest one.
 */
export function upstreamPaths(graph: DependencyGraph, service: string): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  const queue: string[][] = [[service]];
  while (queue.length > 0) {
    const path = queue.shift()!;
    for (const dep of graph[path[path.length - 1]!] ?? []) {
      if (paths.has(dep) || dep === service) continue;
      const next = [...path, dep];
      paths.set(dep, next);
      queue.push(next);
    }
  }
  return paths;
}

/** Whether `upstream` is (transitively) a dependency of `service`. */
export const isUpstream = (graph: DependencyGraph, upstream: string, service: string) =>
  upstreamPaths(graph, service).has(upstream);

/**
 * Of the alerting services, the most upstream one that the most others depend on, and the chain
 * from it down to the alerting service farthest below it (e.g. database → sync → appliance).
 */
export function rootOf(graph: DependencyGraph, services: readonly string[]) {
  const distinct = [...new Set(services)];
  const paths = new Map(distinct.map((s) => [s, upstreamPaths(graph, s)]));
  const roots = distinct.filter((s) => !distinct.some((other) => other !== s && paths.get(s)!.has(other)));
  const below = (root: string) => distinct.filter((s) => s === root || paths.get(s)!.has(root));
  const root = roots.reduce((best, s) => (below(s).length > below(best).length ? s : best), roots[0]!);
  let chain = [root];
  for (const s of below(root)) {
    const path = paths.get(s)!.get(root);
    if (path && path.length > chain.length) chain = [...path].reverse();
  }
  return { root, covered: below(root), chain };
}
