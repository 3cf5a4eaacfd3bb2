/** How sizes and lifetimes are worded for people, the same in error messages, the docs and the OpenAPI document. */

/** Megabytes of 1024 × 1024 bytes, as the docs state sizes. */
export const megabytes = (bytes: number) => `${Number((bytes / 1024 / 1024).toFixed(1))} MB`;

export const lifetimeText = (ttlSeconds: number) => `${Math.round(ttlSeconds / 60)} minutes`;
