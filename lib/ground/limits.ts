/**
 * Fixed limits that the code enforces and the documents state (the error table, the OpenAPI document, `GET /api`),
 * kept here so that the documents need not import what enforces them. Limits an operator sets are in config.ts.
 */

/** Below this many chunks a result comes back inline; from it on, stored and answered as a `result_id`. */
export const INLINE_CHUNK_LIMIT = 100;

/** Pixels of one uploaded image page: past it the image is refused before it is decoded (a decompression bomb). */
export const MAX_IMAGE_PIXELS = 64_000_000;
