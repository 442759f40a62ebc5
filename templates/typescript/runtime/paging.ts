/**
 * Paged lists as async iterables: one page in memory at a time, until the service says
 * there is no next page. A walk always ends: a page met twice, or too many empty pages in
 * a row, is an error; and a walk that fails part-way names the page it can resume at. It
 * never ends quietly on a page it cannot read: a cursor page with records but no way on
 * ends the walk only when it shows it is the last.
 *
 * @module
 */

import { ConfigError, ForeignOriginError, InspectionError, InterruptedError, PagingStalledError, Resume } from "./errors.js";
import { TRACE, notify, reportError, type Observer, type Traced } from "./hooks.js";
import type { CallOptions, PageOptions } from "./options.js";
import { sameOrigin } from "./origin.js";
import { describeRequest, type RequestSpec } from "./request.js";
import type { Desc, Registry } from "./schema.js";

/** How a list operation pages, as the spec says. */
/** What a walk needs of the core that drives it (the core itself; named here so this module does not import it). */
export interface PageSource {
  readonly baseUrl: string;
  readonly maxEmptyPages: number;
  json<T>(reg: Registry, d: Desc, req: RequestSpec, call?: CallOptions): Promise<T>;
  scrub<E>(error: E): E;
}

export type PagingPlan =
  /**
   * `{<itemsField>: [...], <pagingField>: {<nextUrlField>: url, <cursorField>: cursor}}`: the
   * next page's URL is followed when given (within the base URL's origin), else the cursor
   * is sent back as the `pageParam` query parameter. A page with records but neither ends
   * the walk only when it is marked last (the next URL or cursor property there and `null`)
   * or holds fewer records than the page size (its `pageSizeField`, else the request's
   * `perPageParam`); otherwise the walk fails with `PagingStalledError`.
   */
  | {
      style: "cursor";
      itemsField: string;
      pagingField: string;
      nextUrlField?: string;
      cursorField?: string;
      /** The paging property echoing the page size. */
      pageSizeField?: string;
      pageParam: string;
      /** The query parameter asking for a page size. */
      perPageParam?: string;
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
 * time; the methods give pages, the first page only, or (links style) the way back. A page
 * past the walk's start that cannot be fetched ends it with an `InterruptedError` (after
 * the pages before it), whose `resume` starts a new walk at that page.
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

/** A request and, past the walk's start, the resume point of the page it fetches. */
interface PageRequest {
  req: RequestSpec;
  resume: Resume | undefined;
}

/**
 * `req` started at `from` instead of the first page: a cursor is sent as the page
 * parameter, a link is called as it is, on the base URL's origin only.
 */
function resumedAt(core: PageSource, plan: PagingPlan, req: RequestSpec, from: Resume | string): PageRequest {
  const resume = Resume.parse(from);
  if (resume.kind === "link") {
    let url: URL;
    try {
      url = new URL(resume.value);
    } catch {
      throw new ConfigError(`the resume link of ${describeRequest(req)} is not an absolute URL`);
    }
    if (!sameOrigin(url, new URL(core.baseUrl))) throw new ForeignOriginError("a resume link", url.origin);
    return { req: { ...req, url: url.href }, resume };
  }
  if (plan.style !== "cursor") throw new ConfigError(`${describeRequest(req)} pages by links: a cursor cannot resume it`);
  return { req: withCursor(req, plan.pageParam, resume.value), resume };
}

/** `req` asking for the page `cursor` names (the old page parameter, and any link, dropped). */
function withCursor(req: RequestSpec, pageParam: string, cursor: string): RequestSpec {
  const { url: _absolute, ...rest } = req;
  const query = (req.query ?? []).filter(([name]) => name !== pageParam);
  return { ...rest, query: [...query, [pageParam, cursor]] };
}

/** Fetches one page; past the walk's start, a failure names where to resume. */
async function fetchPage<P>(core: PageSource, reg: Registry, plan: PagingPlan, at: PageRequest, call: PageOptions | undefined): Promise<P> {
  try {
    return await core.json<P>(reg, plan.page, at.req, call);
  } catch (e) {
    if (at.resume === undefined || !(e instanceof InspectionError)) throw e;
    throw core.scrub(new InterruptedError(at.resume, e));
  }
}

/**
 * Builds the paged list of `req` on `core` (what `Core.paged` returns). With `observer`,
 * each walk is one call to its hooks, and reports each page it reads.
 */
export function paged<T, P>(
  core: PageSource,
  reg: Registry,
  plan: PagingPlan,
  req: RequestSpec,
  call?: PageOptions,
  observer?: Observer,
): Paged<T, P> {
  const start: PageRequest = call?.resume === undefined ? { req, resume: undefined } : resumedAt(core, plan, req, call.resume);
  const walk = (backward: boolean): AsyncGenerator<Step<T, P>> => walkPages<T, P>(core, reg, plan, start, call, backward, observer);
  const linksOnly = (): void => {
    if (plan.style !== "links") {
      throw new ConfigError(`${describeRequest(req)} pages by cursor, which only goes forward; use pages() or iterate`);
    }
  };
  return {
    [Symbol.asyncIterator]: () => itemsOf(walk(false)),
    pages: () => pagesOf(walk(false)),
    first: () => fetchPage<P>(core, reg, plan, start, call),
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

/** A count: a non-negative integer. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Whether `paging` holds the property `name` as `null`: the service marks the page the last. */
function isNullAt(paging: unknown, name: string | undefined): boolean {
  return name !== undefined && field(paging, name) === null;
}

/** What a page held, for an error: its record count and the paging object's property names. */
function held(records: number, name: string, paging: unknown): string {
  let what: string;
  if (paging === undefined || paging === null) what = `no \`${name}\` object`;
  else if (typeof paging !== "object" || Array.isArray(paging)) what = `\`${name}\` ${JSON.stringify(paging)}`;
  else {
    const keys = Object.keys(paging);
    what = keys.length === 0 ? `an empty \`${name}\` object` : `\`${name}\` {${keys.join(", ")}}`;
  }
  return `${records} ${records === 1 ? "record" : "records"} and ${what}`;
}

/** The request for a link (absolute or base-relative), checked to stay on the base URL's origin. */
function follow(core: PageSource, req: RequestSpec, link: string): PageRequest & { resume: Resume } {
  const base = new URL(core.baseUrl);
  let url: URL;
  try {
    url = new URL(link, base);
  } catch {
    throw new ConfigError(`the next-page link of ${describeRequest(req)} is not a URL`);
  }
  if (!sameOrigin(url, base)) throw new ForeignOriginError("a next-page link", url.origin);
  return { req: { ...req, url: url.href }, resume: Resume.link(url.href) };
}

/** What comes after `page`: a request and a key that changes as paging advances, or nothing. */
function nextOf(
  core: PageSource,
  plan: PagingPlan,
  req: RequestSpec,
  page: unknown,
  backward: boolean,
): (PageRequest & { resume: Resume }) | undefined {
  if (plan.style === "links") {
    const link = nonEmptyString(field(field(page, plan.linksField), backward ? "prev" : "next"));
    return link === undefined ? undefined : follow(core, req, link);
  }
  const paging = field(page, plan.pagingField);
  // The next URL carries the filters as the service means them, so it wins over the cursor.
  const link = plan.nextUrlField === undefined ? undefined : nonEmptyString(field(paging, plan.nextUrlField));
  if (link !== undefined) return follow(core, req, link);
  const cursor = plan.cursorField === undefined ? undefined : nonEmptyString(field(paging, plan.cursorField));
  if (cursor !== undefined) return { req: withCursor(req, plan.pageParam, cursor), resume: Resume.cursor(cursor) };
  const records = field(page, plan.itemsField);
  const n = Array.isArray(records) ? records.length : 0;
  if (n === 0 || isNullAt(paging, plan.nextUrlField) || isNullAt(paging, plan.cursorField)) return undefined;
  const asked = plan.perPageParam === undefined ? undefined : req.query?.find(([name]) => name === plan.perPageParam)?.[1];
  const stated = plan.pageSizeField === undefined ? undefined : count(field(paging, plan.pageSizeField));
  const size = stated ?? (asked !== undefined && /^\d+$/.test(asked) ? Number(asked) : undefined);
  if (size !== undefined && n < size) return undefined;
  throw new PagingStalledError(
    describeRequest(req),
    `the page held ${held(n, plan.pagingField, paging)}, but no next link, no cursor, and nothing saying it is the last ` +
      "(a null link, or fewer records than the page size); the list may go on, so the walk stops rather than end as if complete",
  );
}

async function* walkPages<T, P>(
  core: PageSource,
  reg: Registry,
  plan: PagingPlan,
  first: PageRequest,
  call: PageOptions | undefined,
  backward: boolean,
  observer: Observer | undefined,
): AsyncGenerator<Step<T, P>> {
  // The links or cursors followed so far: a few bytes per page, and what stops A -> B -> A.
  const seen = new Set<string>();
  const maxEmpty = core.maxEmptyPages;
  // With hooks, the walk is one call: its page requests carry its trace.
  const trace = observer?.begin();
  const pageCall: Traced<PageOptions> | undefined = trace === undefined ? call : { ...call, [TRACE]: trace };
  let emptyInARow = 0;
  let pages = 0;
  let at: PageRequest | undefined = first;
  while (at !== undefined) {
    const page: P = await fetchPage<P>(core, reg, plan, at, pageCall);
    const raw = field(page, plan.itemsField);
    const items = (Array.isArray(raw) ? raw : []) as T[];
    pages += 1;
    const hooks = observer?.hooks;
    if (trace !== undefined && hooks?.onPage !== undefined) {
      notify(hooks, hooks.onPage, { operation: at.req.op, callId: trace.id, page: pages, items: items.length });
    }
    emptyInARow = items.length === 0 ? emptyInARow + 1 : 0;
    let next: PageRequest | undefined;
    let error: unknown;
    // An empty page of links ends the walk (the service's last page may still carry a
    // link); cursor paging goes on through empty pages, up to `maxEmptyPages` in a row.
    if (items.length > 0 || plan.style === "cursor") {
      try {
        const step = nextOf(core, plan, at.req, page, backward);
        if (step !== undefined && emptyInARow > maxEmpty) {
          error = new PagingStalledError(describeRequest(at.req), `${emptyInARow} empty pages in a row, each pointing to another`);
        } else if (step !== undefined && seen.has(step.resume.toString())) {
          error = new PagingStalledError(describeRequest(at.req));
        } else if (step !== undefined) {
          seen.add(step.resume.toString());
          next = step;
        }
      } catch (e) {
        error = e;
      }
    }
    // The page requests report their own failures; the walk, what it found wrong itself.
    if (error !== undefined && observer !== undefined && trace !== undefined) reportError(observer, at.req.op, trace, error, false);
    // A bad next step is reported after this page, so its records are not lost.
    yield { page, items, error };
    at = next;
  }
}
