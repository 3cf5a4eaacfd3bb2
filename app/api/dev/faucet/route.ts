import { assertFaucetAvailable, runFaucet } from "@/localchain/faucet-endpoint";
import { readJson } from "@/lib/http/json-body";
import { handle, json, methodNotAllowed, preflight } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = handle(async (request: Request) => {
  const services = getServices();
  assertFaucetAvailable(services);
  return json(
    await runFaucet(
      services,
      await readJson(
        request,
        'POST /api/dev/faucet takes {"address": "<base58>"} with Content-Type: application/json.',
        services.config.bodyRead,
      ),
    ),
  );
});

export const GET = handle(async () => {
  assertFaucetAvailable(getServices());
  return methodNotAllowed("POST");
});
export const OPTIONS = preflight;
