import { checkHealth } from "@/lib/service-info/health";
import { handle, json } from "@/lib/http/respond";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

export const GET = handle(async () => {
  const health = await checkHealth(getServices());
  return json(health, { status: health.status === "healthy" ? 200 : 503 });
});
