/**
 * Cuts HTML into pieces that convert to Markdown independently.
 *
 * node-html-markdown's time grows much faster than its input (it re-reads
 * its whole output string for every formatted element: 200 KB of HTML take
 * 0.7 s, 400 KB take 6.5 s). Converting ~16 KB pieces and joining the
 * results keeps a long document linear. Cuts go only before a block-level
 * opening tag and never inside an element whose Markdown depends on its
 * whole content (tables, lists, code, links, headings) or that the converter
 * drops whole (nav, noscript, ...): those pieces come out exactly as if the
 * page had been converted in one go. Raw-text elements and comments are
 * skipped, so a `<p>` inside a script is not a place to cut.
 *
 * HTML that never closes one of those elements is simply not cut after it:
 * slower, and bounded by the extraction deadline, but never wrong.
 */
const SEGMENT_CHARS = 16 * 1024;

const CUT_BEFORE = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "aside",
  "address",
  "center",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "table",
  "ul",
  "ol",
  "dl",
  "pre",
  "blockquote",
  "figure",
  "details",
  "hr",
]);

const NO_CUT_INSIDE = new Set([
  "table",
  "ul",
  "ol",
  "dl",
  "pre",
  "code",
  "blockquote",
  "figure",
  "details",
  "a",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "head",
  "nav",
  "noscript",
  "template",
  "iframe",
  "svg",
  "math",
  "canvas",
  "button",
  "select",
]);

/** Their content is text, not markup, up to the matching end tag. */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp"]);

// [^<>]: an unterminated "<b" stops at the next "<" instead of scanning to the end each time (quadratic on "x<y" text).
const TAG = /<!--|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*?(\/?)>/g;

export function splitHtml(html: string, target = SEGMENT_CHARS): string[] {
  if (html.length <= target) return [html];
  const segments: string[] = [];
  const open = new Map<string, number>();
  let blocked = 0;
  let start = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    if (m[0] === "<!--") {
      const end = html.indexOf("-->", TAG.lastIndex);
      if (end < 0) break;
      TAG.lastIndex = end + 3;
      continue;
    }
    const closing = m[1] === "/";
    const selfClosing = m[3] === "/";
    const name = (m[2] ?? "").toLowerCase();
    if (!closing && RAW_TEXT.has(name) && !selfClosing) {
      const end = new RegExp(`</${name}\\s*>`, "gi");
      end.lastIndex = TAG.lastIndex;
      if (!end.exec(html)) break;
      TAG.lastIndex = end.lastIndex;
      continue;
    }
    if (name === "body" && !closing && (open.get("head") ?? 0) > 0) {
      // </head> is optional; <body> ends the head all the same.
      blocked -= open.get("head") ?? 0;
      open.set("head", 0);
    }
    if (!closing && blocked === 0 && CUT_BEFORE.has(name) && m.index - start >= target) {
      segments.push(html.slice(start, m.index));
      start = m.index;
    }
    if (!NO_CUT_INSIDE.has(name) || selfClosing) continue;
    const depth = open.get(name) ?? 0;
    if (!closing) {
      open.set(name, depth + 1);
      blocked++;
    } else if (depth > 0) {
      open.set(name, depth - 1);
      blocked--;
    }
  }
  segments.push(html.slice(start));
  return segments;
}
