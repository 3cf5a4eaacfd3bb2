/**
 * Reads the OpenAPI document (`GET /api/openapi.json`) into what the docs
 * page shows: operations grouped by tag, and each schema as rows of fields.
 * Only the parts of OpenAPI 3.1 / JSON Schema the document uses are read.
 */

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  additionalProperties?: boolean | JsonSchema;
}

interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface MediaType {
  schema?: JsonSchema;
}

export interface Response {
  description: string;
  headers?: Record<string, { description?: string; required?: boolean; schema?: JsonSchema }>;
  content?: Record<string, MediaType>;
}

interface CodeSample {
  lang: string;
  label?: string;
  source: string;
}

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  "x-codeSamples"?: CodeSample[];
  "x-chunkwise-tier"?: string;
}

export interface ErrorCodeEntry {
  status: number;
  /** The status name, as the error body's `error` says it. */
  error?: string;
  code: string;
  when: string;
}

interface SecurityScheme {
  type: string;
  in?: string;
  name?: string;
  description?: string;
}

export interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string; summary?: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, SecurityScheme> };
  "x-error-codes"?: ErrorCodeEntry[];
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

export interface OperationEntry {
  method: (typeof METHODS)[number];
  path: string;
  operation: Operation;
}

export interface OperationGroup {
  tag: string;
  description?: string;
  operations: OperationEntry[];
}

/** Operations by tag, in the document's tag order, each keeping the document's path order. */
export function groupOperations(doc: OpenApiDoc): OperationGroup[] {
  const entries: OperationEntry[] = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method]! })),
  );
  const tags = doc.tags?.map((tag) => tag.name) ?? [];
  const untagged = [...new Set(entries.flatMap((entry) => entry.operation.tags ?? []))].filter(
    (tag) => !tags.includes(tag),
  );
  return [...tags, ...untagged]
    .map((tag) => ({
      tag,
      description: doc.tags?.find((t) => t.name === tag)?.description,
      operations: entries.filter((entry) => entry.operation.tags?.[0] === tag),
    }))
    .filter((group) => group.operations.length > 0);
}

/** A stable anchor for a heading or an operation. */
export const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

const refName = (ref: string) => ref.split("/").at(-1) ?? ref;

/** Follows `$ref`s to the schema itself (with the name it was registered under). */
export function resolve(doc: OpenApiDoc, schema: JsonSchema): { schema: JsonSchema; name?: string } {
  let current = schema;
  let name: string | undefined;
  for (let hops = 0; current.$ref && hops < 8; hops++) {
    name = refName(current.$ref);
    const target = doc.components?.schemas?.[name];
    if (!target) break;
    // Siblings of $ref (a description) win over the target's own.
    const { $ref: _ref, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return { schema: current, name };
}

const types = (schema: JsonSchema) => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** A short type label: `string`, `integer | null`, `array of Chunk`, `ChunkingResult`, `one of A, B`. */
function typeLabel(doc: OpenApiDoc, schema: JsonSchema): string {
  if (schema.$ref) return refName(schema.$ref);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map((variant) => typeLabel(doc, variant)).join(" | ");
  const list = types(schema);
  if (list.includes("array")) {
    if (schema.prefixItems) return `[${schema.prefixItems.map((item) => typeLabel(doc, item)).join(", ")}]`;
    return schema.items ? `array of ${typeLabel(doc, schema.items)}` : "array";
  }
  if (schema.format === "binary") return "file";
  const base = list.length ? list.join(" | ") : schema.properties ? "object" : "any";
  return schema.format && !["binary"].includes(schema.format) ? `${base} (${schema.format})` : base;
}

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** What a schema allows beyond its type, in words a reader scans: `one of: raw, pinecone`, `32 to 8192`, `default 512`. */
function constraints(schema: JsonSchema): string[] {
  const out: string[] = [];
  if (schema.const !== undefined) out.push(`always ${show(schema.const)}`);
  if (schema.enum) out.push(`one of: ${schema.enum.map(show).join(", ")}`);
  if (schema.minimum !== undefined && schema.maximum !== undefined) out.push(`${schema.minimum} to ${schema.maximum}`);
  // A lower bound of 0 alone says "not negative", which the field's meaning already does.
  else if (schema.minimum !== undefined && schema.minimum !== 0) out.push(`at least ${schema.minimum}`);
  else if (schema.maximum !== undefined) out.push(`at most ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined)
    out.push(`${schema.minLength} to ${schema.maxLength} characters`);
  else if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  if (schema.minItems) out.push(`at least ${schema.minItems} item${schema.minItems === 1 ? "" : "s"}`);
  if (schema.pattern) out.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) out.push(`default ${show(schema.default)}`);
  if (schema.example !== undefined) out.push(`e.g. ${show(schema.example)}`);
  return out;
}

export interface Field {
  name: string;
  type: string;
  required: boolean;
  description?: string;
  constraints: string[];
  /** An object's own fields, or those of each variant of a union. */
  children?: Field[];
  variants?: Array<{ name: string; fields: Field[] }>;
  /** The object takes fields beyond these. */
  open?: boolean;
}

/** The element schema of an array (or the schema itself), resolved. */
function elementOf(doc: OpenApiDoc, schema: JsonSchema): JsonSchema {
  const resolved = resolve(doc, schema).schema;
  return types(resolved).includes("array") && resolved.items ? resolve(doc, resolved.items).schema : resolved;
}

/** A schema's fields as rows, nested objects and union variants within, to `depth` levels. */
export function fieldsOf(doc: OpenApiDoc, schema: JsonSchema, depth = 3): Field[] {
  const resolved = resolve(doc, schema).schema;
  const required = new Set(resolved.required ?? []);
  return Object.entries(resolved.properties ?? {}).map(([name, raw]) => {
    const property = resolve(doc, raw).schema;
    const element = elementOf(doc, raw);
    const field: Field = {
      name,
      type: typeLabel(doc, raw),
      required: required.has(name),
      description: raw.description ?? property.description,
      constraints: constraints(property),
    };
    if (depth > 1) {
      const variants = element.anyOf ?? element.oneOf;
      if (variants?.some((variant) => resolve(doc, variant).schema.properties))
        field.variants = variants.map((variant) => ({
          name: typeLabel(doc, variant),
          fields: fieldsOf(doc, variant, depth - 1),
        }));
      else if (element.properties) {
        field.children = fieldsOf(doc, element, depth - 1);
        field.open = element.additionalProperties !== undefined && element.additionalProperties !== false;
      }
    }
    return field;
  });
}

/** The alternatives a body may be (a union of named schemas), or the one schema. */
export function bodyVariants(doc: OpenApiDoc, schema: JsonSchema): Array<{ name?: string; schema: JsonSchema }> {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants)
    return variants.map((variant) => ({
      name: resolve(doc, variant).name ?? typeLabel(doc, variant),
      schema: variant,
    }));
  return [{ name: resolve(doc, schema).name, schema }];
}

/** The codes an error response can carry, with what each means (from the document's catalogue). */
export function errorCodesOf(doc: OpenApiDoc, response: Response): ErrorCodeEntry[] {
  const schema = response.content?.["application/json"]?.schema;
  const codes = schema ? resolve(doc, schema).schema.properties?.code?.enum : undefined;
  if (!codes) return [];
  const catalogue = new Map((doc["x-error-codes"] ?? []).map((entry) => [entry.code, entry]));
  return codes.map(String).map((code) => catalogue.get(code) ?? { status: 0, code, when: "" });
}

/** The response's headers as rows. */
export function headersOf(doc: OpenApiDoc, response: Response): Field[] {
  return Object.entries(response.headers ?? {}).map(([name, header]) => ({
    name,
    type: header.schema ? typeLabel(doc, header.schema) : "string",
    required: header.required === true,
    description: header.description,
    constraints: [],
  }));
}

/** The API base the document names for this server (`<origin>/api`). */
export const apiBaseOf = (doc: OpenApiDoc) => doc.servers?.[0]?.url ?? "/api";

/** A path as a reader calls it on this origin: the server's base path (`/api`) and the operation's path. */
export function fullPath(doc: OpenApiDoc, path: string): string {
  let prefix = "";
  try {
    prefix = new URL(apiBaseOf(doc), "http://localhost").pathname.replace(/\/$/, "");
  } catch {
    // An unparsable server URL: show the path as the document has it.
  }
  return path === "/" ? prefix || "/" : `${prefix}${path}`;
}
