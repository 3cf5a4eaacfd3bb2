import type { Services } from "@/lib/services/types";
import type { JobRecord, JobVersion } from "@/lib/jobs/job-store";

/**
 * The worker's hold on a job: every write is a compare-and-set on the last
 * version it wrote, made one at a time. The first refused write means the
 * job was taken over (or expired): `lost` aborts the work.
 */
export class JobHandle {
  #version: JobVersion;
  #writes: Promise<unknown> = Promise.resolve();
  readonly lost = new AbortController();

  constructor(
    private readonly services: Pick<Services, "config" | "jobs">,
    version: JobVersion,
  ) {
    this.#version = version;
  }

  get record(): JobRecord {
    return this.#version.record;
  }

  /** Applies `change` to the job as last written; false when the job is no longer ours. */
  write(change: (record: JobRecord) => JobRecord): Promise<boolean> {
    const next = this.#writes.then(async () => {
      if (this.lost.signal.aborted) return false;
      const written = await this.services.jobs.replace(this.#version, change(this.#version.record));
      if (!written) this.lost.abort();
      else this.#version = written;
      return written !== null;
    });
    this.#writes = next.catch(() => undefined);
    return next;
  }

  /** Renews the lease. */
  renew(): Promise<boolean> {
    return this.write((r) => ({ ...r, lease_until: Date.now() + this.services.config.jobs.leaseMs }));
  }

  /** Progress never goes back, and reaches 100 only when the job completes. */
  progress(share: number, message: string): void {
    void this.write((r) => ({
      ...r,
      progress: Math.max(r.progress, Math.min(99, Math.floor(share * 100))),
      message,
      lease_until: Date.now() + this.services.config.jobs.leaseMs,
    })).catch(() => undefined);
  }
}
