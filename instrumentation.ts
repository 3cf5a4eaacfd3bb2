import type { MetricReader } from "@opentelemetry/sdk-metrics";

/**
 * Next.js calls `register` once when a server instance starts, before any request. It registers where metrics go
 * (lib/observability/meter-provider.ts): the Prometheus reader every instance keeps, and an OTLP/HTTP exporter
 * when OpenTelemetry's endpoint variables are set. On Vercel `@vercel/otel` takes the readers and registers the
 * whole SDK (traces too, exported as the project's Vercel integrations say); elsewhere a plain MeterProvider does.
 * The heavy parts are imported here only, on the Node.js runtime.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { ConfigError, loadConfig } = await import("@/lib/ground/config");
  const { ensureMeterProvider } = await import("@/lib/observability/meter-provider");
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    // The first request answers 503 server_misconfigured and logs why; metrics get the default provider then.
    if (error instanceof ConfigError) return;
    throw error;
  }
  const readers: MetricReader[] = [];
  const { otlpMetricsEndpoint, otlpExportIntervalMs } = config.observability;
  if (otlpMetricsEndpoint) {
    const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-http");
    const { PeriodicExportingMetricReader } = await import("@opentelemetry/sdk-metrics");
    readers.push(
      new PeriodicExportingMetricReader({
        // Headers (OTEL_EXPORTER_OTLP_HEADERS) and the rest are read by the exporter itself.
        exporter: new OTLPMetricExporter({ url: otlpMetricsEndpoint }),
        exportIntervalMillis: otlpExportIntervalMs,
      }),
    );
  }
  if (config.observability.vercelOtel) {
    const { registerOTel } = await import("@vercel/otel");
    ensureMeterProvider(readers, (metricReaders) => registerOTel({ serviceName: "chunkwise", metricReaders }));
  } else {
    ensureMeterProvider(readers);
  }
}
