/**
 * A tier's behaviour lives in its record (lib/tiers/<id>.ts): no code outside lib/tiers/ asks for a tier by
 * name. Read with the TypeScript parser, so a tier's name inside longer text (a curl sample, a tool's
 * description) is prose, not a branch.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { TIERS, TIER_IDS } from "@/lib/tiers";

const ROOT = join(import.meta.dirname, "..");
const SCANNED = ["lib", "app", "components", "web"];
const RECORDS = join("lib", "tiers");

/** Tier ids and result prefixes: a literal equal to one is code that knows a tier. */
const TIER_NAMES = new Set<string>([...TIER_IDS, ...TIER_IDS.map((id) => TIERS[id].resultPrefix)]);

/**
 * A literal type that names a property of another type (`Config["ai"]`, `Pick<Config, "ai">`) names the
 * config's `ai` section, not a tier.
 */
function namesAProperty(node: ts.Node): boolean {
  let literal = node.parent;
  if (!literal || !ts.isLiteralTypeNode(literal)) return false;
  while (literal.parent && ts.isUnionTypeNode(literal.parent)) literal = literal.parent;
  const holder = literal.parent;
  if (holder && ts.isIndexedAccessTypeNode(holder)) return holder.indexType === literal;
  return (
    !!holder &&
    ts.isTypeReferenceNode(holder) &&
    ts.isIdentifier(holder.typeName) &&
    ["Pick", "Omit"].includes(holder.typeName.text)
  );
}

/** Each literal in `source` that is exactly a tier's name, as `line: code`. */
function tierLiterals(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      TIER_NAMES.has(node.text) &&
      !namesAProperty(node)
    ) {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      found.push(`${line + 1}: ${source.split("\n")[line]!.trim()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === RECORDS ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe("tier names outside lib/tiers/", () => {
  it("finds a branch on a tier's name, and not the config's ai section or a name inside prose", () => {
    const source = [
      'if (tier === "ai-pro") enrich();',
      'const model: Config["ai"]["model"] = "";',
      'type Settings = Pick<Config, "ai" | "limits">;',
      'const sample = `curl -d \'{"tier": "free"}\'`;',
      "const scope = { free: 1 };",
      "switch (tier) { case `semantic`: break; }",
    ].join("\n");
    expect(tierLiterals("sample.ts", source)).toEqual([
      '1: if (tier === "ai-pro") enrich();',
      "6: switch (tier) { case `semantic`: break; }",
    ]);
  });

  it("appear in no source file: orchestrators, docs and the page read the tier's record", () => {
    const files = SCANNED.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((path) =>
      tierLiterals(path, readFileSync(join(ROOT, path), "utf8")).map((hit) => `${relative(".", path)}:${hit}`),
    );
    expect(found).toEqual([]);
  });
});
