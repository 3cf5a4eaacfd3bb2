/**
 * lib/'s layers and the rule that no import runs up them or round in a circle (`npm run lint:deps`).
 *
 *   surfaces  http/ mcp/ openapi/ service-info/ api-info.ts   what the service answers and says about itself
 *   services  store/ payments/ jobs/ quota/ uploads/ webhooks/ fetch/ cpu/ observability/ idempotency/
 *             batch/ streams/ services/ pipeline.ts chunk-result.ts results.ts   side effects and the request path
 *   core      extract/ chunking/ tokens/ formats/ embeddings/ ai/ language/ api-schema/   documents in, chunks out
 *   ground    ground/ tiers.ts   config, errors and their table, fixed limits, wording; no imports from above
 *
 * A layer imports its own and those below it. Type-only imports count: every file circle lib/ had ran through
 * one, a reader follows them like any other, and an edit turns `import type` into a value import unnoticed.
 */
const LAYERS = {
  ground: ["^lib/ground/", "^lib/tiers/"],
  core: ["^lib/(extract|chunking|tokens|formats|embeddings|ai|language|api-schema)/"],
  services: [
    "^lib/(store|payments|jobs|quota|uploads|webhooks|fetch|cpu|observability|idempotency|batch|streams|services|pipeline|results)/",
  ],
  surfaces: ["^lib/(http|mcp|openapi|service-info)/"],
};
const ABOVE = {
  ground: [...LAYERS.core, ...LAYERS.services, ...LAYERS.surfaces],
  core: [...LAYERS.services, ...LAYERS.surfaces],
  services: LAYERS.surfaces,
};
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A file circle in lib/: move what both sides need into a module below them.",
      from: { path: "^lib/" },
      to: { circular: true },
    },
    ...Object.entries(ABOVE).map(([layer, above]) => ({
      name: `${layer}-imports-up`,
      severity: "error",
      comment: `${layer} imports only ${layer} and the layers below it (see .dependency-cruiser.cjs).`,
      from: { path: LAYERS[layer] },
      to: {
        path: above,
        // The store's interface: core is given a store (a cache) without depending on one.
        pathNot: ["^lib/store/types[.]ts$"],
      },
    })),
    {
      name: "lib-file-in-a-layer",
      severity: "error",
      comment: "Every file of lib/ is in a layer: put it in a layer's folder, or name its folder in LAYERS.",
      from: { path: "^lib/", pathNot: Object.values(LAYERS).flat() },
      to: {},
    },
  ],
  options: {
    includeOnly: "^lib/",
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
  },
};
