import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ERRORS_PAGE, withErrorTable } from "@/scripts/docs-errors";
import { loadConfig } from "@/lib/ground/config";
import { ERROR_CODES, type ErrorCode, errorCatalogue, errorTableMarkdown } from "@/lib/ground/error-codes";
import { ApiError } from "@/lib/ground/errors";
import { type Json, openApiSuite, root, served } from "./helpers/openapi";

/**
 * The one error table (lib/ground/error-codes.ts): every code listed in the OpenAPI document under its status, each
 * answered with somewhere, only a code of the table can be thrown, and docs/errors.md's table is the same.
 */

openApiSuite();

describe("the error table", () => {
  it("lists every code of the table under its status, each answered with somewhere, and docs/errors.md's table is the same", async () => {
    const { document } = await served();
    const catalogue = document["x-error-codes"] as Array<{ status: number; code: string; when: string }>;
    const listed = new Map(catalogue.map((entry) => [entry.code, entry.status]));
    expect(listed.size).toBe(catalogue.length);
    expect(Object.keys(ERROR_CODES).length).toBeGreaterThan(60);
    for (const [name, { status }] of Object.entries(ERROR_CODES))
      expect(listed.get(name), `${name} (${status}) is not documented`).toBe(status);
    expect(listed.size).toBe(Object.keys(ERROR_CODES).length);

    // Only a code of the table can be thrown: ApiError takes an ErrorCode and its status from the table.
    expectTypeOf<ConstructorParameters<typeof ApiError>[0]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<"no_such_code">().not.toExtend<ErrorCode>();
    expect(new ApiError("ocr_too_many_pages", "").status).toBe(413);

    // A code nothing answers with does not stay in the table.
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (/\.tsx?$/.test(entry.name) && entry.name !== "error-codes.ts")
          sources.push(readFileSync(join(dir, entry.name), "utf8"));
      }
    };
    for (const dir of ["lib", "app", "localchain"]) walk(join(root, dir));
    const code = sources.join("\n");
    for (const entry of catalogue)
      expect(code, `${entry.code} is in the table but nothing answers with it`).toContain(`"${entry.code}"`);

    const page = readFileSync(join(root, ERRORS_PAGE), "utf8");
    const table = errorTableMarkdown(errorCatalogue(loadConfig({})));
    expect(withErrorTable(page, table), `${ERRORS_PAGE}'s error table is stale: run npm run docs:errors`).toBe(page);

    // Each operation's error answers use listed codes, under their status.
    for (const item of Object.values(document.paths))
      for (const op of Object.values(item as Json))
        for (const [status, answer] of Object.entries((op as Json).responses as Record<string, Json>)) {
          const codes: string[] | undefined = answer.content?.["application/json"]?.schema?.properties?.code?.enum;
          if (Number(status) >= 400 && codes)
            for (const name of codes)
              expect(listed.get(name), `${(op as Json).operationId} ${status} ${name}`).toBe(Number(status));
        }
  });
});
