/**
 * The README is one page that sends readers to the manuals in docs/: a link to
 * a moved or missing page, or to a heading that was renamed, sends them nowhere.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..");
const pages = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const markdown = new MarkdownIt();

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

function headingsAndLinks(page: string) {
  const tokens = markdown.parse(readFileSync(path.join(ROOT, page), "utf8"), {});
  const anchors = new Set<string>();
  const links: string[] = [];
  tokens.forEach((token, i) => {
    if (token.type === "heading_open") anchors.add(anchorOf(tokens[i + 1]?.content ?? ""));
    for (const child of token.children ?? [])
      if (child.type === "link_open" || child.type === "image") {
        const target = child.attrGet(child.type === "image" ? "src" : "href");
        if (typeof target === "string") links.push(target);
      }
  });
  return { anchors, links };
}

describe("the README and the manuals", () => {
  it("link only to files and headings that exist", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of headingsAndLinks(page).links) {
        if (/^[a-z]+:/i.test(link)) continue;
        const [file = "", anchor] = link.split("#");
        const target = file ? path.normalize(path.join(path.dirname(page), decodeURI(file))) : page;
        if (!existsSync(path.join(ROOT, target))) broken.push(`${page}: ${link} (no ${target})`);
        else if (anchor && target.endsWith(".md") && !headingsAndLinks(target).anchors.has(anchor))
          broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("keep the README to one page: set-up, an example, the manuals and the folder map", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(sections).toEqual(["Set up on a fresh machine", "An example", "Manuals", "Where things live"]);
    // Exactly two commands to set up: one runs the service, one runs the tests.
    const setUp = readme.slice(readme.indexOf("## Set up"), readme.indexOf("## An example"));
    expect([...setUp.matchAll(/```sh\n(.+)\n```/g)].map((match) => match[1])).toEqual([
      "npm install && npm run build && npm start",
      "npm install && npm test",
    ]);
  });
});
