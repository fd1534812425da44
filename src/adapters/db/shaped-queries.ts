// Compiled statements by shape. Kysely builds a query as a tree and compiles it to SQL on every
// call. For the run path's statements (a batch's INSERT, claim, terminal write) that cost about as
// much CPU as SQLite spent running them (under bench/workers.ts, 11% of the API process). Their SQL
// depends only on their shape (how many rows or ids a batch has), so each shape is built and
// compiled once, with a marker in place of each value. Later calls of the same shape reuse that
// SQL and put their values where the markers were. Constants the builder bound itself (a literal
// status, a null) keep the value compiled with them.
import type { CompiledQuery } from 'kysely';

/** Stands for the i-th value while a shape is compiled. */
class Slot {
  constructor(readonly i: number) {}
}

export class ShapedQueries {
  private readonly cache = new Map<string, { query: CompiledQuery; slots: number[] }>();

  constructor(private readonly max = 300) {}

  /**
   * The statement `build` compiles for `values`, compiled once per `shape`. `build` must produce
   * the same SQL for every list of values of one shape; each value must reach the query as a bound
   * parameter, used as is (the builder must not look into it).
   */
  compile<V extends readonly unknown[], R = unknown>(shape: string, values: V, build: (values: V) => CompiledQuery<R>): CompiledQuery<R> {
    let e = this.cache.get(shape);
    if (!e) {
      const query = build(values.map((_, i) => new Slot(i)) as unknown as V);
      const slots = query.parameters.map((p) => (p instanceof Slot ? p.i : -1));
      const bound = new Set(slots.filter((s) => s >= 0));
      if (bound.size !== values.length)
        throw new Error(`shaped query ${shape}: ${values.length} values, but the compiled statement binds ${bound.size} of them`);
      e = { query, slots };
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(shape, e);
    }
    const { query, slots } = e as { query: CompiledQuery<R>; slots: number[] };
    return { ...query, parameters: slots.map((s, k) => (s < 0 ? query.parameters[k] : values[s])) };
  }
}
