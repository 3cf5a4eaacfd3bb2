/**
 * The time of one slice of a job. Expensive units of work (a page read by OCR, a model call) run through
 * `unit()`: a unit that would not end before the deadline, judging by the longest one seen in this slice, is not
 * started; the units already running are waited for (their output is stored as they end), then `SliceEnd` is
 * thrown, which the slice runner turns into "publish the next slice". The first unit of a slice always starts, so
 * every slice makes progress.
 */
export class SliceEnd extends Error {
  constructor() {
    super("the slice's time is up; the job goes on in its next slice");
    this.name = "SliceEnd";
  }
}

export class SliceClock {
  #longestMs = 0;
  #started = 0;
  readonly #running = new Set<Promise<unknown>>();

  /** `deadline`: a performance.now() time; `killed`: the host ended this slice (no unit starts after it). */
  constructor(
    readonly deadline: number,
    readonly killed: AbortSignal = new AbortController().signal,
  ) {}

  /** Units started in this slice. */
  get started(): number {
    return this.#started;
  }

  fits(): boolean {
    if (this.killed.aborted) return false;
    return this.#started === 0 || performance.now() + this.#longestMs < this.deadline;
  }

  async unit<T>(work: () => Promise<T>): Promise<T> {
    if (!this.fits()) return this.end();
    this.#started++;
    const since = performance.now();
    const running = work();
    const settled = running.then(
      () => void (this.#longestMs = Math.max(this.#longestMs, performance.now() - since)),
      () => undefined,
    );
    this.#running.add(settled);
    void settled.then(() => this.#running.delete(settled));
    return running;
  }

  /** Ends the slice once the units running have ended: throws SliceEnd. */
  async end(): Promise<never> {
    await this.drain();
    throw new SliceEnd();
  }

  /** Until every unit started has ended (and stored its output). */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
