// Group commit for the run hot path: claims and terminal writes that arrive in the same event-loop
// turn go to the database together (one statement for the claims, one transaction for the
// results), instead of one autocommit per run.
export class Batcher<In, Out> {
  private items: { input: In; resolve: (o: Out) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;

  constructor(private readonly flushBatch: (inputs: In[]) => Promise<Out[]>) {}

  add(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.items.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.items;
    this.items = [];
    this.scheduled = false;
    try {
      const out = await this.flushBatch(batch.map((b) => b.input));
      batch.forEach((b, i) => b.resolve(out[i]));
    } catch (e) {
      for (const b of batch) b.reject(e);
    }
  }
}
