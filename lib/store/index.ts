import type { Config } from "@/lib/ground/config";
import { MemoryStore } from "@/lib/store/memory";
import { RedisStore } from "@/lib/store/redis";
import type { Store } from "@/lib/store/types";
import { UpstashStore } from "@/lib/store/upstash";

export type { Store } from "@/lib/store/types";
export { MemoryStore, RedisStore, UpstashStore };
export { StoreClosedError } from "@/lib/store/errors";

export function createStore(config: Config["store"]): Store {
  switch (config.kind) {
    case "memory":
      return new MemoryStore();
    case "redis":
      return new RedisStore({ url: config.url });
    case "upstash":
      return new UpstashStore({ url: config.url, token: config.token });
  }
}
