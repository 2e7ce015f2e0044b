import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Envelope, envelope } from '../../shared/http/envelope.ts';

export const RootLinksSchema = Type.Record(Type.String(), Type.String(), {
  description: 'Where to go next: docs, OpenAPI, health, metrics',
});

const AreaSchema = Type.Object({
  name: Type.String({ description: 'The OpenAPI tag its operations carry' }),
  paths: Type.Array(Type.String(), { description: 'Where its routes begin' }),
});

export const RootSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  links: RootLinksSchema,
  areas: Type.Array(AreaSchema),
});
export type Root = Static<typeof RootSchema>;

export interface RootOptions {
  /** Where a browser asking for `/` is sent. */
  home: string;
  links: Record<string, string>;
}

/** The q-value a media type gets from an Accept header, when the header names it exactly. */
function quality(accept: string, type: string) {
  for (const part of accept.split(',')) {
    const [name, ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (name !== type) continue;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined ? 1 : Number(q.slice(2)) || 0;
  }
  return 0;
}

/** Browsers name text/html; curl and API clients accept anything or name application/json. */
function wantsHtml(request: FastifyRequest) {
  const accept = request.headers.accept ?? '';
  const html = quality(accept, 'text/html');
  return html > 0 && html >= quality(accept, 'application/json');
}

// Version and area prefixes come before the area's own name: /v1/auth, /api/v1/pnl, /api/internal/cockpit.
const LEADING = /^(api|internal|v\d+)$/;

/** Where a route's area begins: its path up to the first segment that names something. */
export function areaPath(path: string) {
  const segments = path.split('/').filter(Boolean);
  const named = segments.findIndex((segment) => !LEADING.test(segment));
  return `/${segments.slice(0, named === -1 ? segments.length : named + 1).join('/')}`;
}

type Operations = Record<string, { tags?: string[] } | undefined>;

/** The API's areas as the OpenAPI document groups its operations, with where each one's routes begin. */
export function areasOf(paths: Record<string, Operations | undefined>) {
  const areas = new Map<string, Set<string>>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const operation of Object.values(operations ?? {})) {
      for (const tag of operation?.tags ?? []) {
        const found = areas.get(tag) ?? new Set<string>();
        areas.set(tag, found.add(areaPath(path)));
      }
    }
  }
  return [...areas]
    .map(([name, prefixes]) => ({ name, paths: [...prefixes].sort() }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * What the gateway answers at `/`: a browser is sent to `home`, an API client gets the links and
 * the API's areas, read from the OpenAPI document once it is complete.
 */
export async function rootRoutes(app: FastifyInstance, opts: RootOptions) {
  let root: Root | undefined;
  const describe = (): Root => {
    const document = app.swagger() as {
      info: { title: string; version: string };
      paths?: Record<string, Operations>;
    };
    return {
      name: document.info.title,
      version: document.info.version,
      links: opts.links,
      areas: areasOf(document.paths ?? {}),
    };
  };
  app.get(
    '/',
    {
      schema: {
        tags: ['operations'],
        summary: 'Where to start',
        description:
          'A browser (Accept: text/html) is redirected to the docs; an API client gets the links to the docs, the OpenAPI document, health and metrics, and the API areas with where their routes begin.',
        response: {
          200: Envelope(RootSchema),
          302: Type.Null({ description: 'Location: the docs' }),
        },
      },
    },
    async (request, reply) => {
      if (wantsHtml(request)) return reply.redirect(opts.home, 302);
      root ??= describe();
      return envelope(request.id, root);
    },
  );
}
