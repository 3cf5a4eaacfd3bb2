import type { Services } from "@/lib/services";
import type { Step, StepOutcome } from "./engine";
import { runSlice } from "./runner";

/** Each kind of step to its handler: what a QStash delivery or the in-process engine runs. */
export function runStep(services: Services, step: Step): Promise<StepOutcome> {
  switch (step.kind) {
    case "job-slice":
      return runSlice(services, step);
  }
}
