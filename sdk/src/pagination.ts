// Async iteration over the service's cursor-paged lists (`data`, `has_more`, `next_cursor`).

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * A lazily fetched list: `for await (const item of list)` walks every item across pages;
 * `pages()` yields whole pages; `toArray({max})` collects. Nothing is fetched until iteration starts,
 * and every iteration starts again from the first page.
 */
export class Paginator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** The first page only. */
  async firstPage(): Promise<Page<T>> {
    return this.fetchPage(undefined);
  }

  /** Every item (or the first `max`), fetching only the pages needed. */
  async toArray(opts: { max?: number } = {}): Promise<T[]> {
    const out: T[] = [];
    if (opts.max !== undefined && opts.max <= 0) return out;
    for await (const item of this) {
      out.push(item);
      if (opts.max !== undefined && out.length >= opts.max) break;
    }
    return out;
  }
}
