// Route matching, compiled once from the endpoints: a Map for paths without parameters, a tree
// of path segments for the others. A literal segment wins over a :param at the same place, and
// the search backs up to the :param when the literal leads nowhere (as hapi's router does).

import type { Endpoint } from '../endpoint/types.ts';

export type RouteMatch =
  /** params are as they appear in the path, still percent-encoded. */
  | { kind: 'endpoint'; endpoint: Endpoint; params: Record<string, string> }
  /** The path is served, but not with this method; `oauth`: its endpoints answer errors in
   * RFC 6749's shape, so this refusal does too. */
  | { kind: 'path'; cors: boolean; oauth: boolean }
  | { kind: 'none' };

interface Routed {
  endpoint: Endpoint;
  names: readonly string[];
}

interface TreeNode {
  literals: Map<string, TreeNode>;
  param: TreeNode | null;
  routes: Map<string, Routed>;
}

const NONE: RouteMatch = { kind: 'none' };

function node(): TreeNode {
  return { literals: new Map(), param: null, routes: new Map() };
}

function corsOf(routes: Iterable<Routed>): boolean {
  for (const { endpoint } of routes) if (endpoint.cors !== false) return true;
  return false;
}

function oauthOf(routes: Iterable<Routed>): boolean {
  for (const { endpoint } of routes) if (endpoint.oauthErrors === true) return true;
  return false;
}

export class Router {
  readonly #static = new Map<string, Map<string, Routed>>();
  readonly #root = node();
  #deepest = 0;

  /** Earlier endpoints win over later ones with the same method and path. */
  constructor(endpoints: readonly Endpoint[]) {
    for (const endpoint of endpoints) {
      const segments = endpoint.path.split('/');
      const names = segments.filter((s) => s.startsWith(':')).map((s) => s.slice(1));
      let routes: Map<string, Routed>;
      if (names.length === 0) {
        routes = this.#static.get(endpoint.path) ?? new Map();
        this.#static.set(endpoint.path, routes);
      } else {
        let at = this.#root;
        for (const segment of segments) {
          if (segment.startsWith(':')) at = at.param ??= node();
          else at = at.literals.get(segment) ?? at.literals.set(segment, node()).get(segment)!;
        }
        routes = at.routes;
        this.#deepest = Math.max(this.#deepest, segments.length);
      }
      if (!routes.has(endpoint.method)) routes.set(endpoint.method, { endpoint, names });
    }
  }

  match(method: string, path: string): RouteMatch {
    const fixed = this.#static.get(path);
    const direct = fixed?.get(method);
    if (direct) return { kind: 'endpoint', endpoint: direct.endpoint, params: {} };
    let known: TreeNode | null = null;
    const segments = path.split('/', this.#deepest + 1);
    if (segments.length <= this.#deepest) {
      const values: string[] = [];
      const walk = (at: TreeNode, i: number): Routed | null => {
        if (i === segments.length) {
          if (at.routes.size > 0) known ??= at;
          return at.routes.get(method) ?? null;
        }
        const segment = segments[i] ?? '';
        const literal = at.literals.get(segment);
        const found = literal ? walk(literal, i + 1) : null;
        if (found || at.param === null || segment === '') return found;
        values.push(segment);
        const viaParam = walk(at.param, i + 1);
        if (!viaParam) values.pop();
        return viaParam;
      };
      const routed = walk(this.#root, 0);
      if (routed) {
        const params: Record<string, string> = {};
        routed.names.forEach((name, i) => (params[name] = values[i] ?? ''));
        return { kind: 'endpoint', endpoint: routed.endpoint, params };
      }
    }
    if (fixed || known) {
      const routes = [...(fixed?.values() ?? []), ...((known as TreeNode | null)?.routes.values() ?? [])];
      return { kind: 'path', cors: corsOf(routes), oauth: oauthOf(routes) };
    }
    return NONE;
  }
}
