import type { Services } from "@/lib/services/types";
import type { Step, StepOutcome } from "./engine";
import { runSlice } from "./runner";

/** Each kind of step to its handler: what a QStash delivery or the in-process engine runs. */
export function runStep(services: Services, step: Step): Promise<StepOutcome> {
  switch (step.kind) {
    case "job-slice":
      return runSlice(services, step);
    case "webhook":
      // A try another delivery is making is asked for again later; a made or skipped one is done (its retry, if
      // any, is already published by `deliver`).
      return services.webhooks.deliver(step.delivery).then((outcome) => (outcome === "in_progress" ? "busy" : "done"));
  }
}
