import { type OpenApiDoc, type OperationEntry, bodyVariants, errorCodesOf, fieldsOf, fullPath, headersOf, resolve } from "@/web/openapi-reference";
import { CodeBlock } from "./CodeBlock";
import { BreakablePath } from "./DocsNav";
import { InlineCode, InlineText } from "./InlineText";
import { Nested, SchemaFields } from "./SchemaFields";

const METHOD_STYLES: Record<string, string> = {
  get: "bg-success-soft text-success",
  post: "bg-accent-soft text-accent",
};

function MethodBadge({ method }: { method: string }) {
  return (
    <span className={`inline-flex w-14 shrink-0 justify-center rounded-md px-2 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_STYLES[method] ?? "bg-surface-2 text-fg"}`}>
      {method}
    </span>
  );
}

function statusStyle(status: string) {
  if (status.startsWith("2")) return "bg-success-soft text-success";
  if (status === "402") return "bg-warning-soft text-warning";
  return "bg-danger-soft text-danger";
}

function SubHeading({ children }: { children: string }) {
  return <h4 className="text-xs font-semibold uppercase tracking-wider text-muted">{children}</h4>;
}

/** One operation of the reference: what it does, what it takes, what it answers, and how to call it. */
export function OperationCard({ doc, entry }: { doc: OpenApiDoc; entry: OperationEntry }) {
  const { method, path, operation } = entry;
  const id = operation.operationId;
  const security = operation.security ?? [];
  const paymentRequired = security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0);
  const paymentOptional = security.length > 0 && !paymentRequired;
  const body = operation.requestBody ? Object.entries(operation.requestBody.content)[0] : undefined;
  const params = operation.parameters ?? [];

  return (
    <article id={id} aria-labelledby={`${id}-title`} className="scroll-mt-24 rounded-2xl border border-line bg-surface p-5 sm:p-6">
      <header>
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <MethodBadge method={method} />
          <code className="min-w-0 font-mono text-sm font-semibold text-fg">
            <BreakablePath path={fullPath(doc, path)} />
          </code>
          {paymentRequired || paymentOptional ? (
            <span className="rounded-full bg-warning-soft px-2 py-0.5 text-xs font-medium text-warning">{paymentRequired ? "X-PAYMENT" : "X-PAYMENT for paid tiers"}</span>
          ) : null}
        </div>
        <h3 id={`${id}-title`} className="mt-3 text-lg font-semibold text-fg">
          <a href={`#${id}`} className="rounded hover:underline">
            {operation.summary ?? id}
          </a>
        </h3>
        <InlineText text={operation.description} className="mt-2 text-sm leading-relaxed text-muted" />
      </header>

      <div className="mt-5 space-y-6">
        {params.length ? (
          <section aria-label={`${operation.summary}: parameters`} className="space-y-3">
            <SubHeading>Path parameters</SubHeading>
            <SchemaFields
              label="Path parameters"
              fields={params.map((param) => ({
                name: param.name,
                type: param.schema ? resolve(doc, param.schema).schema.type?.toString() ?? "string" : "string",
                required: param.required === true,
                description: param.description,
                constraints: param.schema?.pattern ? [`pattern ${param.schema.pattern}`] : [],
              }))}
            />
          </section>
        ) : null}

        {body ? (
          <section aria-label={`${operation.summary}: request body`} className="space-y-3">
            <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
              <SubHeading>Request body</SubHeading>
              <code className="font-mono text-xs text-muted">{body[0]}</code>
            </div>
            <SchemaFields label="Request body fields" fields={body[1].schema ? fieldsOf(doc, body[1].schema) : []} />
          </section>
        ) : null}

        <section aria-label={`${operation.summary}: responses`} className="space-y-3">
          <SubHeading>Responses</SubHeading>
          <ul className="space-y-2">
            {Object.entries(operation.responses).map(([status, response]) => {
              const [title, ...rest] = response.description.split("\n");
              const codes = errorCodesOf(doc, response);
              const schema = response.content?.["application/json"]?.schema;
              const variants = schema && codes.length === 0 ? bodyVariants(doc, schema) : [];
              const headers = headersOf(doc, response);
              return (
                <li key={status} className="rounded-xl border border-line">
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2.5">
                    <span className={`rounded-md px-2 py-0.5 font-mono text-xs font-bold tabular-nums ${statusStyle(status)}`}>{status}</span>
                    <span className="text-sm text-fg">
                      <InlineCode text={title ?? ""} />
                    </span>
                  </div>
                  {codes.length || rest.length || variants.length || headers.length ? (
                    <div className="space-y-3 border-t border-line px-3 py-3">
                      {codes.length ? (
                        <dl className="grid gap-x-4 gap-y-1.5 text-sm sm:grid-cols-[minmax(10rem,max-content)_minmax(0,1fr)]">
                          {codes.map((code) => (
                            <div key={code.code} className="contents">
                              <dt>
                                <code className="break-all font-mono text-xs font-semibold text-fg">{code.code}</code>
                              </dt>
                              <dd className="mb-1.5 text-muted sm:mb-0">
                                <InlineCode text={code.when} />
                              </dd>
                            </div>
                          ))}
                        </dl>
                      ) : rest.length ? (
                        <InlineText text={rest.join("\n")} className="text-sm text-muted" />
                      ) : null}
                      {variants.map((variant, i) => (
                        <Nested
                          key={variant.name ?? "body"}
                          summary={
                            <>
                              <span className="text-muted">{variants.length > 1 ? (i === 0 ? "Body, one of: " : "or: ") : "Body: "}</span>
                              <span className="font-mono">{variant.name ?? "object"}</span>
                            </>
                          }
                        >
                          <InlineText text={resolve(doc, variant.schema).schema.description} className="mb-3 text-sm text-muted" />
                          <SchemaFields label={`${variant.name ?? "Body"} fields`} fields={fieldsOf(doc, variant.schema)} open={resolve(doc, variant.schema).schema.additionalProperties !== false && resolve(doc, variant.schema).schema.additionalProperties !== undefined} />
                        </Nested>
                      ))}
                      {headers.length ? (
                        <Nested summary="Headers">
                          <SchemaFields label="Response headers" fields={headers} />
                        </Nested>
                      ) : null}
                    </div>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </section>

        {operation["x-codeSamples"]?.length ? (
          <section aria-label={`${operation.summary}: example`} className="space-y-3">
            <SubHeading>Example</SubHeading>
            {operation["x-codeSamples"].map((sample, i) => (
              <CodeBlock key={i} code={sample.source} language="sh" label={`${operation.summary}: ${sample.label ?? sample.lang} example ${i + 1}`} />
            ))}
          </section>
        ) : null}
      </div>
    </article>
  );
}
