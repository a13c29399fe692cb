/**
 * Finds the operation of a request in time proportional to the depth of its path, whatever the number of
 * operations: a tree of path segments where static segments are looked up in a map and a parameter is the
 * fallback at its level (so `/versions/latest` wins over `/versions/{versionId}`, and a method the static
 * path lacks can still be served by the parameterised one).
 */
export interface RouteMatch<T> {
  route: T;
  params: Record<string, string>;
}

export type Lookup<T> =
  | { kind: 'found'; match: RouteMatch<T> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' }
  | { kind: 'bad-path' };

interface Node<T> {
  statics: Map<string, Node<T>>;
  /** `rest`: the parameter ends the path and takes every remaining segment, slashes included. */
  param: { name: string; node: Node<T>; rest: boolean } | undefined;
  methods: Map<string, T>;
}

function newNode<T>(): Node<T> {
  return { statics: new Map(), param: undefined, methods: new Map() };
}

export class PathRouter<T> {
  readonly #root: Node<T> = newNode();

  /**
   * `path` is written the OpenAPI way (`/v1/orgs/{organizationId}`); `method` in upper case. `restParameter`
   * names a parameter that ends the path and matches the rest of it, slashes included (a page path such as
   * `guide/install`, which clients send unencoded).
   */
  add(method: string, path: string, route: T, options: { restParameter?: string } = {}): void {
    let node = this.#root;
    const segments = path.split('/').slice(1);
    if (options.restParameter !== undefined && segments[segments.length - 1] !== `{${options.restParameter}}`) {
      throw new Error(`${path}: the rest parameter {${options.restParameter}} must end the path`);
    }
    for (const [index, segment] of segments.entries()) {
      const param = /^\{([^}]+)\}$/.exec(segment);
      if (param) {
        const rest = options.restParameter === param[1] && index === segments.length - 1;
        if (node.param && (node.param.name !== param[1] || node.param.rest !== rest)) {
          throw new Error(`${path}: parameter {${param[1]}} conflicts with {${node.param.name}} at the same place`);
        }
        node.param ??= { name: param[1]!, node: newNode(), rest };
        node = node.param.node;
      } else {
        let next = node.statics.get(segment);
        if (!next) {
          next = newNode();
          node.statics.set(segment, next);
        }
        node = next;
      }
    }
    if (node.methods.has(method)) throw new Error(`${method} ${path} is defined twice`);
    node.methods.set(method, route);
  }

  /** `pathname` is the raw (still percent-encoded) path of the request, without its query. */
  lookup(method: string, pathname: string): Lookup<T> {
    if (!pathname.startsWith('/')) return { kind: 'not-found' };
    const segments = pathname.split('/').slice(1);
    let allow: string[] | undefined;
    let badPath = false;

    const walk = (node: Node<T>, depth: number): RouteMatch<T> | undefined => {
      if (depth === segments.length) {
        const route = node.methods.get(method) ?? (method === 'HEAD' ? node.methods.get('GET') : undefined);
        if (route) return { route, params: {} };
        if (node.methods.size > 0 && !allow) {
          allow = [...node.methods.keys()];
          if (allow.includes('GET')) allow.push('HEAD');
        }
        return undefined;
      }
      const segment = segments[depth]!;
      const staticChild = node.statics.get(segment);
      if (staticChild) {
        const found = walk(staticChild, depth + 1);
        if (found) return found;
      }
      if (node.param && segment !== '') {
        const taken = node.param.rest ? segments.slice(depth) : [segment];
        if (taken.includes('')) return undefined;
        let value: string;
        try {
          value = taken.map((part) => decodeURIComponent(part)).join('/');
        } catch {
          badPath = true;
          return undefined;
        }
        const found = walk(node.param.node, depth + taken.length);
        if (found) {
          found.params = { [node.param.name]: value, ...found.params };
          return found;
        }
      }
      return undefined;
    };

    const match = walk(this.#root, 0);
    if (match) return { kind: 'found', match };
    if (badPath) return { kind: 'bad-path' };
    if (allow) return { kind: 'method-not-allowed', allow };
    return { kind: 'not-found' };
  }
}
