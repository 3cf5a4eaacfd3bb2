/**
 * Runs the model stand-in (standin/model-server.ts) until stopped:
 *   npm run model:standin -- [--port 8787] [--host 127.0.0.1] [--delay-ms 0] [--retry-after 0]
 * Prints what it is, its base URL and the environment that points the
 * service's AI tiers at it. `--port 0` takes a free port.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { STANDIN_BANNER, startModelStandin } from "@/standin/model-server";

const USAGE =
  "usage: npm run model:standin -- [--port 8787] [--host 127.0.0.1] [--delay-ms MS] [--retry-after SECONDS]";

const Args = z.object({
  port: z.coerce.number().int().min(0).max(65_535),
  host: z.string().min(1),
  delayMs: z.coerce.number().int().min(0).max(600_000),
  retryAfterSeconds: z.coerce.number().int().min(0).max(86_400),
});

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8787" },
      host: { type: "string", default: "127.0.0.1" },
      "delay-ms": { type: "string", default: "0" },
      "retry-after": { type: "string", default: "0" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const args = Args.safeParse({
    port: values.port,
    host: values.host,
    delayMs: values["delay-ms"],
    retryAfterSeconds: values["retry-after"],
  });
  if (!args.success) {
    console.error(args.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join("\n"));
    console.error(USAGE);
    return 2;
  }

  const standin = await startModelStandin(args.data);
  const root = standin.url.replace(/\/v1$/, "");
  console.log(STANDIN_BANNER);
  console.log(`Listening on ${standin.url}  (description: GET ${root}/, faults: POST ${root}/control)`);
  console.log("Point the service at it with:");
  console.log(`  AI_BASE_URL=${standin.url} AI_MODEL=standin-small AI_PRO_MODEL=standin-large`);

  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await standin.close();
  console.log("Model stand-in stopped.");
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
