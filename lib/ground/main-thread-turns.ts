/**
 * Turns of the main thread for the few steps of a request that still read a
 * whole document there (decoding an upload, hashing it, encoding it for a
 * worker: ~5 ms each on 3 MB). One such step runs per turn of the event
 * loop, with the loop's I/O polled between turns, so a health check or a
 * small request that arrives while several large uploads land waits for one
 * step, not for all of them back to back.
 *
 * Each waiting step is released from its own `setImmediate` callback:
 * callbacks queued while the check phase runs wait for the next iteration,
 * which polls I/O first. A promise continuation runs right after the
 * callback that resolves it, so the step runs in that turn.
 */
const waiting: (() => void)[] = [];
let scheduled = false;

function releaseNext(): void {
  scheduled = false;
  waiting.shift()?.();
  if (waiting.length > 0) schedule();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(releaseNext);
}

/** Resolves on a turn of its own: the caller's synchronous work up to its next `await` is the turn's only step. */
export function mainThreadTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    schedule();
  });
}
