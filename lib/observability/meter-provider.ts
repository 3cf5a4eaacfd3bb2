import { metrics } from "@opentelemetry/api";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { MeterProvider, type MetricReader } from "@opentelemetry/sdk-metrics";

/**
 * Where the metrics recorded through the OpenTelemetry API (lib/observability/metrics.ts) go. Every instance keeps
 * a Prometheus reader, served by GET /api/metrics when METRICS_TOKEN is set; instrumentation.ts may add an OTLP
 * reader and, on Vercel, hands the readers to `@vercel/otel`, which then owns the provider. Metrics are per
 * instance: each process (or function instance) counts its own, and a scraper or collector adds them up.
 *
 * The OpenTelemetry API's instruments made before a provider is registered stay no-ops, so the provider is
 * registered before the first instrument is made (`ensureMeterProvider`), whichever comes first: Next.js's
 * instrumentation hook or a first request (tests, hosts without the hook).
 */

const holder = globalThis as typeof globalThis & {
  __chunkwisePrometheus?: PrometheusExporter;
  __chunkwiseMeterProvider?: boolean;
};

/** The scrape reader of this process (created once; it starts no server of its own). */
function prometheusReader(): PrometheusExporter {
  return (holder.__chunkwisePrometheus ??= new PrometheusExporter({ preventServerStart: true }));
}

/**
 * Registers `register(readers)`'s provider unless one is registered already; by default a plain MeterProvider.
 * The Prometheus reader is always among the readers.
 */
export function ensureMeterProvider(
  more: MetricReader[] = [],
  register: (readers: MetricReader[]) => void = (readers) => {
    metrics.setGlobalMeterProvider(new MeterProvider({ readers }));
  },
): void {
  if (holder.__chunkwiseMeterProvider) return;
  holder.__chunkwiseMeterProvider = true;
  register([prometheusReader(), ...more]);
}

/** This process's metrics in Prometheus's text format (version 0.0.4). */
export async function prometheusText(): Promise<string> {
  const { resourceMetrics } = await prometheusReader().collect();
  return new PrometheusSerializer().serialize(resourceMetrics);
}
