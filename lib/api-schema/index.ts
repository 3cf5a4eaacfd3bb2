/**
 * Every wire shape of the API, one zod schema each, with the types derived
 * from it: requests, paying, chunks, results and jobs, the service's own
 * endpoints. Routes validate with them, the tests parse real answers with
 * them, the page's client takes its types from them, and the OpenAPI
 * document (lib/openapi/) is generated from them.
 */
export * from "./requests";
export * from "./payments";
export * from "./chunks";
export * from "./results";
export * from "./service";
export * from "./uploads";
export * from "./batches";
