/**
 * The routes of spec/openapi.yaml, and the one rule that puts a request under one of them. Read by
 * the CLI (the run's spec, the fleet's labels) and by the suites' exchange log, which names each
 * request's operation as it logs it; everything else (exchanges.har's `_operation`, the response
 * times of summary.json and summary.md) reads that name, so that no two reports can disagree.
 *
 * A request belongs to a route when its method is the route's and its path, under the base URL,
 * matches the route's path template exactly, as OpenAPI's path templating says:
 *
 * - the path is taken as sent, percent-encoding and all, never decoded: `/pets/a%2Fb` is one segment
 *   (a value of `{petId}`), and `/p%65ts` is not `/pets`;
 * - a template expression (`{petId}`) matches one whole, non-empty segment, and nothing else matches
 *   loosely: a trailing slash (`/pets/12/`, `/pets/`), a doubled slash (`/pets//12`) or another letter
 *   case (`/PETS`) make another path, which is no route's;
 * - the query takes no part: `/pets?limit=1` is `/pets`;
 * - a concrete path wins over a template that also matches it (OpenAPI's "Path Templating Matching");
 * - the method is compared as HTTP compares it, letter case included (`get` is not `GET`).
 */

/** An operation of the document: "GET /pets/{petId}" (showPetById). */
export interface Route {
  /** Upper case: "GET". */
  readonly method: string;
  /** The path template, under the base URL: "/pets/{petId}". */
  readonly path: string;
  readonly operationId: string;
}

/** What a request matched: the template, and the operation when the template has one for its method. */
export interface RouteMatch {
  readonly method: string;
  /** The path template matched: "/pets/{petId}". */
  readonly path: string;
  /** Absent for a method the path does not define (DELETE /pets). */
  readonly operationId?: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of an OpenAPI document (parsed, as loosely typed data) that has an operationId, in its order. */
export function routesOf(openapi: unknown): Route[] {
  const paths = (openapi as { paths?: unknown } | null)?.paths;
  if (typeof paths !== 'object' || paths === null) return [];
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(paths as Record<string, unknown>)) {
    if (typeof item !== 'object' || item === null) continue;
    for (const [method, operation] of Object.entries(item as Record<string, unknown>)) {
      const operationId = (operation as { operationId?: unknown } | null)?.operationId;
      if (METHODS.includes(method) && typeof operationId === 'string')
        routes.push({ method: method.toUpperCase(), path, operationId });
    }
  }
  return routes;
}

/** operationId → "GET /pets", as the reports label an operation. */
export function routeNames(routes: readonly Route[]): Map<string, string> {
  return new Map(routes.map((r) => [r.operationId, `${r.method} ${r.path}`]));
}

/**
 * The matcher of a set of routes (each template compiled once): the route a request's method and
 * path belong to, `path` being the path under the base URL without its query ("/pets/12"), as sent;
 * undefined when it matches no template.
 */
export function routeMatcher(
  routes: readonly Route[],
): (method: string, path: string) => RouteMatch | undefined {
  const templates = [...new Set(routes.map((r) => r.path))]
    .map((template) => ({
      template,
      pattern: templatePattern(template),
      expressions: expressionCount(template),
    }))
    // A concrete path before a templated one, then the fewer expressions first.
    .sort((a, b) => a.expressions - b.expressions);
  return (method, path) => {
    const found = templates.find((t) => t.pattern.test(path));
    if (found === undefined) return undefined;
    const route = routes.find((r) => r.path === found.template && r.method === method);
    return { method, path: found.template, ...(route ? { operationId: route.operationId } : {}) };
  };
}

/** /pets/{petId} as a pattern: each expression one non-empty segment, the rest as written. */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/\{[^}/]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${source}$`);
}

function expressionCount(template: string): number {
  return template.match(/\{[^}/]+\}/g)?.length ?? 0;
}
