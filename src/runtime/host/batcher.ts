// Group commit for the run hot path: claims, run inserts and terminal writes go to the database
// in batches (one statement for the claims, one transaction for the results) instead of one
// transaction per run. One batch is written at a time: what arrives while it is written waits and
// goes in the next one. So an idle server writes at the next event-loop turn, and a busy one
// writes bigger batches, not more of them: on PostgreSQL each transaction is several round trips
// (BEGIN, the writes, the webhook savepoint, COMMIT), which were most of a worker's CPU per run.
export class Batcher<In, Out> {
  private items: { input: In; resolve: (o: Out) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private writing = false;

  constructor(private readonly flushBatch: (inputs: In[]) => Promise<Out[]>) {}

  add(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.items.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing || !this.items.length) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.items;
    this.items = [];
    this.scheduled = false;
    this.writing = true;
    try {
      const out = await this.flushBatch(batch.map((b) => b.input));
      batch.forEach((b, i) => b.resolve(out[i]));
    } catch (e) {
      for (const b of batch) b.reject(e);
    } finally {
      this.writing = false;
      this.schedule();
    }
  }
}
