"use client";

import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useSyncExternalStore } from "react";
import { ProblemAlert } from "@/components/home/ProblemAlert";
import { useApiInfo } from "@/components/home/useApiInfo";
import { ApiUnreachable, getOpenApiDocument } from "@/web/api-client";
import {
  type ExampleContext,
  agentExample,
  batchExample,
  curlExamples,
  mcpBatchExample,
  mcpExample,
  x402Example,
  x402V2Example,
} from "@/web/docs-examples";
import { type OpenApiDoc, apiBaseOf, groupOperations, slug } from "@/web/openapi-reference";
import { type Problem, problemFromError, unreachableProblem } from "@/web/problems";
import { CodeBlock } from "./CodeBlock";
import { DocsNav, GUIDE_SECTIONS } from "./DocsNav";
import { ErrorCatalogue } from "./ErrorCatalogue";
import { ExampleTabs } from "./ExampleTabs";
import { InlineText } from "./InlineText";
import { OperationCard } from "./OperationCard";
import { TierTable } from "./TierTable";

class DocumentProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

/** `GET /api/openapi.json`, the reference's only source. */
function useOpenApiDocument() {
  const query = useQuery({
    queryKey: ["openapi-document"],
    staleTime: 5 * 60_000,
    queryFn: async (): Promise<OpenApiDoc> => {
      try {
        const outcome = await getOpenApiDocument();
        if (outcome.kind === "ok") return outcome.body;
        throw new DocumentProblem(outcome.kind === "error" ? problemFromError(outcome.status, outcome.body) : problemFromError(outcome.status, {}));
      } catch (error) {
        if (error instanceof ApiUnreachable) throw new DocumentProblem(unreachableProblem());
        throw error;
      }
    },
  });
  const problem = query.error ? (query.error instanceof DocumentProblem ? query.error.problem : unreachableProblem()) : null;
  return { doc: query.data ?? null, problem, retry: () => void query.refetch(), retrying: query.isFetching };
}

const noSubscription = () => () => {};
/** This page's origin once in the browser (empty while rendering on the server). */
const useOrigin = () => useSyncExternalStore(noSubscription, () => window.location.origin, () => "");

function Section({ id, title, lead, children }: { id: string; title: string; lead?: ReactNode; children: ReactNode }) {
  return (
    <section id={id} aria-labelledby={`${id}-heading`} className="scroll-mt-24 pt-14">
      <h2 id={`${id}-heading`} className="text-2xl font-bold tracking-tight text-fg">
        {title}
      </h2>
      {lead ? <div className="mt-2 max-w-3xl text-base leading-relaxed text-muted">{lead}</div> : null}
      <div className="mt-6">{children}</div>
    </section>
  );
}

function Examples({ examples }: { examples: ReturnType<typeof curlExamples> }) {
  return (
    <div className="space-y-8">
      {examples.map((example) => (
        <div key={example.id}>
          <h3 className="text-base font-semibold text-fg">{example.title}</h3>
          <InlineText text={example.intro} className="mb-3 mt-1 text-sm leading-relaxed text-muted" />
          <CodeBlock code={example.code} language={example.language} label={example.title} />
        </div>
      ))}
    </div>
  );
}

function RetryButton({ onClick, busy }: { onClick: () => void; busy: boolean }) {
  return (
    <button type="button" onClick={onClick} disabled={busy} className="rounded-lg border border-line bg-surface px-4 py-2 text-sm font-medium text-fg hover:bg-surface-2 disabled:opacity-60">
      {busy ? "Trying again…" : "Try again"}
    </button>
  );
}

/**
 * The API reference for developers and agents: rendered from the service's
 * own OpenAPI document, with examples written for this server.
 */
export function DocsPage() {
  const { doc, problem, retry, retrying } = useOpenApiDocument();
  const { api, problem: apiProblem, retry: retryApi, retrying: retryingApi } = useApiInfo();
  const origin = useOrigin();
  const apiBase = doc ? apiBaseOf(doc) : `${origin}/api`;
  const context: ExampleContext = { apiBase, rpcUrl: api?.payment.rpc_url, x402Network: api?.payment.x402?.network, faucetUrl: api?.localnet?.faucet_url };
  const groups = doc ? groupOperations(doc) : [];
  const agent = agentExample(context);
  const x402 = x402Example(context);
  const x402V2 = x402V2Example(context);
  const mcp = mcpExample(context);
  const batch = batchExample(context);
  const mcpBatch = mcpBatchExample(context);

  return (
    <div className="mx-auto max-w-6xl px-4 pb-8 pt-10 sm:px-6 sm:pt-14 lg:grid lg:grid-cols-[14rem_minmax(0,1fr)] lg:gap-12">
      <aside className="hidden lg:block">
        <DocsNav doc={doc} groups={groups} className="sticky top-24 max-h-[calc(100dvh-7rem)] overflow-y-auto pb-8" />
      </aside>

      <div className="min-w-0">
        <header className="max-w-3xl">
          <p className="text-sm font-semibold text-accent">Developers and agents</p>
          <h1 className="mt-1 text-3xl font-bold tracking-tight text-fg sm:text-4xl">API reference</h1>
          <p className="mt-3 text-base leading-relaxed text-muted sm:text-lg">
            Chunk PDF (scanned ones too, by OCR), images of text, DOCX, PPTX, XLSX, CSV, EPUB, OpenDocument, RTF, e-mail, HTML, Markdown and text over HTTP, one document or a batch. The free tier needs nothing; the paid tiers settle per request in USDC on Solana through HTTP 402, so an agent can pay
            its own way. Everything below is rendered from the service&apos;s OpenAPI 3.1 document.
          </p>
          <dl className="mt-6 grid gap-3 text-sm sm:grid-cols-[auto_minmax(0,1fr)] sm:gap-x-6">
            <dt className="font-medium text-fg">Base URL</dt>
            <dd className="min-w-0">
              <code className="break-all rounded-md bg-surface-2 px-2 py-1 font-mono text-[13px] text-fg">{apiBase}</code>
            </dd>
            <dt className="font-medium text-fg">OpenAPI</dt>
            <dd className="flex flex-col gap-x-3 gap-y-1 text-muted sm:flex-row sm:items-center">
              <a href="/api/openapi.json" className="rounded font-medium text-accent underline-offset-4 hover:underline">
                /api/openapi.json
              </a>
              <span className="min-h-5">{doc ? `OpenAPI ${doc.openapi}, API version ${doc.info.version}` : ""}</span>
            </dd>
            <dt className="font-medium text-fg">Network</dt>
            {/* Two lines reserved on a phone, where the local chain's note wraps. */}
            <dd className="min-h-10 text-muted sm:min-h-5">{api ? `${api.network}${api.localnet ? " (a local test chain: test USDC, no real money)" : ""}` : ""}</dd>
          </dl>
        </header>

        <div className="mt-8 lg:hidden">
          <details className="rounded-xl border border-line bg-surface">
            <summary className="cursor-pointer rounded-xl px-4 py-3 text-sm font-medium text-fg">On this page</summary>
            <DocsNav doc={doc} groups={groups} className="border-t border-line px-2 py-3" />
          </details>
        </div>

        <Section
          id={GUIDE_SECTIONS[0].id}
          title={GUIDE_SECTIONS[0].label}
          lead={<>Copy, paste, run: these examples are written for this server.</>}
        >
          <ExampleTabs
            label="Examples"
            tabs={[
              { id: "curl", label: "curl", content: <Examples examples={curlExamples(context)} /> },
              {
                id: "agent",
                label: "Agent flow",
                content: (
                  <div>
                    <ol className="mb-5 grid gap-2 text-sm text-muted sm:grid-cols-2">
                      {[
                        ["Ask", "Send the request without payment."],
                        ["Read the 402", "paymentRequirements: maxAmountRequired, payTo, asset, extra.reference."],
                        ["Pay", "Transfer the USDC to payTo with the reference in a Memo; wait for confirmed."],
                        ["Repeat", "Send the same request with X-PAYMENT: <signature>."],
                      ].map(([step, what], i) => (
                        <li key={step} className="flex gap-3 rounded-xl border border-line bg-surface p-3">
                          <span aria-hidden="true" className="flex size-6 shrink-0 items-center justify-center rounded-full bg-accent-soft text-xs font-bold text-accent">
                            {i + 1}
                          </span>
                          <span>
                            <span className="font-semibold text-fg">{step}.</span> {what}
                          </span>
                        </li>
                      ))}
                    </ol>
                    <Examples examples={[agent]} />
                    <p className="mt-4 text-sm text-muted">
                      The same flow ships as a script:{" "}
                      <code className="rounded bg-surface-2 px-1 py-0.5 font-mono text-[0.875em] text-fg">npm run example:agent -- {"<document url>"} --tier structure --api {apiBase}</code>
                      {api?.localnet ? " (on this local chain it funds its own test wallet)." : " (set AGENT_SECRET_KEY to a funded wallet)."}
                    </p>
                  </div>
                ),
              },
              {
                id: "x402",
                label: "x402",
                content: (
                  <div>
                    {api && !api.payment.x402 ? (
                      <p className="mb-4 rounded-lg bg-warning-soft px-3 py-2 text-sm text-warning">
                        This server takes transaction signatures only (no fee payer is configured), so x402 payloads are refused with <code className="font-mono">x402_unavailable</code>.
                      </p>
                    ) : null}
                    <Examples examples={[x402V2, batch, x402]} />
                  </div>
                ),
              },
              { id: "mcp", label: "MCP", content: <Examples examples={[mcp, mcpBatch]} /> },
            ]}
          />
        </Section>

        <Section
          id={GUIDE_SECTIONS[1].id}
          title={GUIDE_SECTIONS[1].label}
          lead={
            <>
              From <code className="rounded bg-surface-2 px-1 py-0.5 font-mono text-[0.875em] text-fg">GET /api</code> on this server. Prices are per request, in USDC (6 decimals);
              one payment pays for one document with one tier and one set of options.
            </>
          }
        >
          {apiProblem ? (
            <div className="space-y-3">
              <ProblemAlert problem={apiProblem} />
              <RetryButton onClick={retryApi} busy={retryingApi} />
            </div>
          ) : (
            <TierTable api={api} />
          )}
        </Section>

        {problem ? (
          <div className="space-y-3 pt-14">
            <ProblemAlert problem={{ ...problem, title: "The API reference could not be loaded" }} />
            <RetryButton onClick={retry} busy={retrying} />
          </div>
        ) : doc ? (
          <>
            {groups.map((group) => (
              <Section key={group.tag} id={slug(group.tag)} title={group.tag} lead={group.description}>
                <div className="space-y-6">
                  {group.operations.map((entry) => (
                    <OperationCard key={entry.operation.operationId} doc={doc} entry={entry} />
                  ))}
                </div>
              </Section>
            ))}
            <Section
              id="errors"
              title="Errors"
              lead={
                <>
                  Every error but 402 has the body{" "}
                  <code className="rounded bg-surface-2 px-1 py-0.5 font-mono text-[0.875em] text-fg">{'{"success": false, "error", "code", "message"}'}</code>. Branch on{" "}
                  <code className="rounded bg-surface-2 px-1 py-0.5 font-mono text-[0.875em] text-fg">code</code>; <code className="rounded bg-surface-2 px-1 py-0.5 font-mono text-[0.875em] text-fg">message</code>{" "}
                  says what to do. A 402 carries the payment requirements and a <code className="rounded bg-surface-2 px-1 py-0.5 font-mono text-[0.875em] text-fg">code</code> saying
                  why.
                </>
              }
            >
              <ErrorCatalogue doc={doc} />
            </Section>
          </>
        ) : (
          <div role="status" aria-live="polite" className="pt-14">
            <span className="sr-only">Loading the API reference…</span>
            <div aria-hidden="true" className="space-y-6">
              <div className="h-8 w-48 animate-pulse rounded-md bg-surface-2" />
              {Array.from({ length: 3 }, (_, i) => (
                <div key={i} className="h-80 animate-pulse rounded-2xl border border-line bg-surface" />
              ))}
            </div>
          </div>
        )}
      </div>
    </div>
  );
}
