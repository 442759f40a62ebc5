/**
 * Paged lists as async iterables: one page in memory at a time, until the service says
 * there is no next page.
 *
 * @module
 */

import type { CallOptions, Core } from "./core.js";
import { ConfigError, ForeignOriginError, PagingStalledError } from "./errors.js";
import { sameOrigin } from "./origin.js";
import { describeRequest, type RequestSpec } from "./request.js";
import type { Desc, Registry } from "./schema.js";

/** How a list operation pages, as the spec says. */
export type PagingPlan =
  /**
   * `{<itemsField>: [...], <pagingField>: {<nextUrlField>: url, <cursorField>: cursor}}`: the
   * next page's URL is followed when given (within the base URL's origin), else the cursor
   * is sent back as the `pageParam` query parameter.
   */
  | {
      style: "cursor";
      itemsField: string;
      pagingField: string;
      nextUrlField?: string;
      cursorField?: string;
      pageParam: string;
      /** The envelope's descriptor: items are decoded through it. */
      page: Desc;
    }
  /** `{<itemsField>: [...], <linksField>: {next, prev}}` with absolute or base-relative links. */
  | {
      style: "links";
      itemsField: string;
      linksField: string;
      /** The envelope's descriptor: items are decoded through it. */
      page: Desc;
    };

/**
 * A paged list. `for await (const x of list)` yields every item, fetching a page at a
 * time; the methods give pages, the first page only, or (links style) the way back.
 */
export interface Paged<T, P> extends AsyncIterable<T> {
  /** Every page, in order. */
  pages(): AsyncIterable<P>;
  /** The first page only. */
  first(): Promise<P>;
  /** Every item going back through `prev` links (links style only; cursor style throws `ConfigError`). */
  backward(): AsyncIterable<T>;
  /** Every page going back through `prev` links (links style only; cursor style throws `ConfigError`). */
  pagesBackward(): AsyncIterable<P>;
}

/** One fetched page, its items, and what went wrong working out the next (reported after the items). */
interface Step<T, P> {
  page: P;
  items: readonly T[];
  error: unknown;
}

/** Builds the paged list of `req` on `core` (what `Core.paged` returns). */
export function paged<T, P>(core: Core, reg: Registry, plan: PagingPlan, req: RequestSpec, call?: CallOptions): Paged<T, P> {
  const walk = (backward: boolean): AsyncGenerator<Step<T, P>> => walkPages<T, P>(core, reg, plan, req, call, backward);
  const linksOnly = (): void => {
    if (plan.style !== "links") {
      throw new ConfigError(`${describeRequest(req)} pages by cursor, which only goes forward; use pages() or iterate`);
    }
  };
  return {
    [Symbol.asyncIterator]: () => itemsOf(walk(false)),
    pages: () => pagesOf(walk(false)),
    first: () => core.json<P>(reg, plan.page, req, call),
    backward: () => {
      linksOnly();
      return { [Symbol.asyncIterator]: () => itemsOf(walk(true)) };
    },
    pagesBackward: () => {
      linksOnly();
      return { [Symbol.asyncIterator]: () => pagesOf(walk(true)) };
    },
  };
}

async function* itemsOf<T, P>(steps: AsyncGenerator<Step<T, P>>): AsyncGenerator<T> {
  for await (const step of steps) {
    yield* step.items;
    if (step.error !== undefined) throw step.error;
  }
}

async function* pagesOf<T, P>(steps: AsyncGenerator<Step<T, P>>): AsyncGenerator<P> {
  for await (const step of steps) {
    yield step.page;
    if (step.error !== undefined) throw step.error;
  }
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null && Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The request for a link (absolute or base-relative), checked to stay on the base URL's origin. */
function follow(core: Core, req: RequestSpec, link: string): { req: RequestSpec; key: string } {
  const base = new URL(core.baseUrl);
  let url: URL;
  try {
    url = new URL(link, base);
  } catch {
    throw new ConfigError(`the next-page link of ${describeRequest(req)} is not a URL`);
  }
  if (!sameOrigin(url, base)) throw new ForeignOriginError("a next-page link", url.origin);
  return { req: { ...req, url: url.href }, key: url.href };
}

/** What comes after `page`: a request and a key that changes as paging advances, or nothing. */
function nextOf(
  core: Core,
  plan: PagingPlan,
  req: RequestSpec,
  page: unknown,
  backward: boolean,
): { req: RequestSpec; key: string } | undefined {
  if (plan.style === "links") {
    const link = nonEmptyString(field(field(page, plan.linksField), backward ? "prev" : "next"));
    return link === undefined ? undefined : follow(core, req, link);
  }
  const paging = field(page, plan.pagingField);
  // The next URL carries the filters as the service means them, so it wins over the cursor.
  const link = plan.nextUrlField === undefined ? undefined : nonEmptyString(field(paging, plan.nextUrlField));
  if (link !== undefined) return follow(core, req, link);
  const cursor = plan.cursorField === undefined ? undefined : nonEmptyString(field(paging, plan.cursorField));
  if (cursor === undefined) return undefined;
  const { url: _absolute, ...rest } = req;
  const query = (req.query ?? []).filter(([name]) => name !== plan.pageParam);
  return { req: { ...rest, query: [...query, [plan.pageParam, cursor]] }, key: `cursor:${cursor}` };
}

async function* walkPages<T, P>(
  core: Core,
  reg: Registry,
  plan: PagingPlan,
  first: RequestSpec,
  call: CallOptions | undefined,
  backward: boolean,
): AsyncGenerator<Step<T, P>> {
  // The links or cursors followed so far: a few bytes per page, and what stops A -> B -> A.
  const seen = new Set<string>();
  let req: RequestSpec | undefined = first;
  while (req !== undefined) {
    const page = await core.json<P>(reg, plan.page, req, call);
    const raw = field(page, plan.itemsField);
    const items = (Array.isArray(raw) ? raw : []) as T[];
    let next: RequestSpec | undefined;
    let error: unknown;
    // An empty page ends the walk (the service's last page may still carry a link).
    if (items.length > 0) {
      try {
        const step = nextOf(core, plan, req, page, backward);
        if (step !== undefined && seen.has(step.key)) error = new PagingStalledError(describeRequest(req));
        else if (step !== undefined) {
          seen.add(step.key);
          next = step.req;
        }
      } catch (e) {
        error = e;
      }
    }
    // A bad next step is reported after this page, so its records are not lost.
    yield { page, items, error };
    req = next;
  }
}
