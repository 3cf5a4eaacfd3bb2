import MsgReaderModule from "@kenjiuno/msgreader";
import PostalMime, { type Address, type Email } from "postal-mime";
import { size } from "@/lib/extract/archive";
import { detect, type Detected, type Hint } from "@/lib/extract/detect";
import { failures } from "@/lib/extract/failures";
import { convertHtml } from "@/lib/extract/html";
import type { DocumentPart, Extracted, ExtractLimits } from "@/lib/extract/types";
import { ApiError } from "@/lib/ground/errors";
import type { EmailHeaders } from "@/lib/api-schema";

/**
 * E-mail (EML through postal-mime; Outlook .msg through @kenjiuno/msgreader,
 * both maintained and pure JavaScript) → its body, then each attachment in a
 * supported format as a document of its own, in one text:
 *
 * - every part carries the e-mail's headers (from, to, cc, date, subject),
 *   and each attachment's part its file name: every chunk names them;
 * - the body: HTML when there is HTML (through the HTML path), else the text;
 *   quoted replies are Markdown quotes (HTML blockquotes, "> " lines, and what
 *   follows an Outlook "-----Original Message-----" line);
 * - attached e-mails are opened `maxEmailDepth` levels deep, their own headers
 *   on their parts; deeper ones are refused (document_too_complex);
 * - attachments in other formats (archives, spreadsheets, inline images of
 *   the HTML body) are listed in the body, not read;
 * - the attachments' decoded bytes count against `maxUnpackedBytes` together,
 *   their OCR pages against `maxOcrPages` together, and the whole e-mail gets
 *   the one extraction deadline.
 */

export interface EmailText {
  text: string;
  parts: DocumentPart[];
}

/** Reads one attachment (any supported format but e-mail) under the limits left. */
export type ReadAttachment = (
  bytes: Uint8Array,
  hint: Hint,
  detected: Detected,
  limits: ExtractLimits,
) => Promise<Extracted>;

interface Message {
  headers: EmailHeaders;
  html?: string;
  text?: string;
  attachments: { filename: string; bytes: Uint8Array; inline: boolean }[];
  /** Outlook items embedded in a .msg: the reader gives their fields, not bytes (their own attachments are not read). */
  embedded: { filename: string; message: Message }[];
}

interface Budget {
  unpackedLeft: number;
  ocrPagesLeft: number;
  deadline: number;
}

export async function extractEmail(
  bytes: Uint8Array,
  format: "eml" | "msg",
  limits: ExtractLimits,
  readAttachment: ReadAttachment,
): Promise<EmailText> {
  const budget: Budget = {
    unpackedLeft: limits.maxUnpackedBytes,
    ocrPagesLeft: limits.maxOcrPages,
    deadline: Date.now() + limits.timeoutMs,
  };
  const out: EmailText = { text: "", parts: [] };
  const message = format === "eml" ? await parseEml(bytes, limits) : parseMsg(bytes);
  await readMessage(message, limits, readAttachment, budget, out, { depth: 0, path: [] });
  return out;
}

/** Attachments that are refused for what they hold, not for their size: listed as not read, the e-mail read all the same. */
const UNREADABLE =
  /^(?:no_text|empty_document|corrupted_\w+|encrypted_pdf|drm_protected|unsupported_type|invalid_encoding)$/;

async function readMessage(
  message: Message,
  limits: ExtractLimits,
  readAttachment: ReadAttachment,
  budget: Budget,
  out: EmailText,
  at: { depth: number; path: string[] },
): Promise<void> {
  const skipped: string[] = [];
  const read: { filename: string; detected: Detected; bytes: Uint8Array }[] = [];
  for (const attachment of message.attachments) {
    budget.unpackedLeft -= attachment.bytes.length;
    if (budget.unpackedLeft < 0)
      throw failures.zipBomb(`its attachments decode to more than the ${size(limits.maxUnpackedBytes)} allowed`);
    if (attachment.inline) continue;
    const detected = await detectAttachment(attachment.bytes, attachment.filename);
    if (detected) read.push({ filename: attachment.filename, detected, bytes: attachment.bytes });
    else skipped.push(attachment.filename);
  }

  const texts: { path: string[]; text: string }[] = [];
  for (const attachment of read) {
    if (attachment.detected.kind === "email") continue;
    try {
      const extracted = await readAttachment(attachment.bytes, { filename: attachment.filename }, attachment.detected, {
        ...limits,
        maxOcrPages: budget.ocrPagesLeft,
        timeoutMs: timeLeft(budget),
        maxEmailDepth: 0,
      });
      budget.ocrPagesLeft -= extracted.ocrPages?.length ?? 0;
      texts.push({ path: [...at.path, attachment.filename], text: extracted.text });
    } catch (error) {
      if (!(error instanceof ApiError && UNREADABLE.test(error.code))) throw error;
      skipped.push(attachment.filename);
    }
  }

  const body = await bodyMarkdown(message, skipped, limits, budget);
  add(out, body, { email: message.headers, ...(at.path.length ? { attachment: at.path.join(" / ") } : {}) });
  for (const { path, text } of texts) add(out, text, { email: message.headers, attachment: path.join(" / ") });

  const nested = [
    ...read
      .filter((a) => a.detected.kind === "email")
      .map((a) => ({ filename: a.filename, bytes: a.bytes, detected: a.detected })),
    ...message.embedded.map((e) => ({ filename: e.filename, message: e.message })),
  ];
  if (nested.length > 0 && at.depth + 1 > (limits.maxEmailDepth ?? 0))
    throw failures.emailTooDeep(limits.maxEmailDepth ?? 0);
  for (const item of nested) {
    timeLeft(budget);
    const inner =
      "message" in item
        ? item.message
        : item.detected.kind === "email" && item.detected.format === "msg"
          ? parseMsg(item.bytes)
          : await parseEml(item.bytes, limits);
    await readMessage(inner, limits, readAttachment, budget, out, {
      depth: at.depth + 1,
      path: [...at.path, item.filename],
    });
  }
}

function add(out: EmailText, text: string, part: Omit<DocumentPart, "start" | "end">): void {
  const trimmed = text.trim();
  if (trimmed === "") return;
  if (out.text !== "") out.text += "\n\n";
  out.parts.push({ start: out.text.length, end: out.text.length + trimmed.length, ...part });
  out.text += trimmed;
}

function timeLeft(budget: Budget): number {
  const left = budget.deadline - Date.now();
  if (left <= 0) throw failures.tooComplex("time");
  return left;
}

/** The attachment's type from its bytes, or undefined when it is not a format read here (or holds no text). */
async function detectAttachment(bytes: Uint8Array, filename: string): Promise<Detected | undefined> {
  try {
    return await detect(bytes, { filename });
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

async function parseEml(bytes: Uint8Array, limits: ExtractLimits): Promise<Message> {
  let email: Email;
  try {
    email = await PostalMime.parse(bytes, {
      // Attached e-mails are read here, each against the depth limit.
      forceRfc822Attachments: true,
      maxRfc822NestingDepth: 0,
      maxNestingDepth: limits.markup.maxDepth,
      attachmentEncoding: "arraybuffer",
    });
  } catch (error) {
    if (/nesting|depth/i.test(error instanceof Error ? error.message : ""))
      throw failures.markupTooComplex({
        limit: "depth",
        found: limits.markup.maxDepth + 1,
        max: limits.markup.maxDepth,
      });
    throw failures.corruptedDocument("This e-mail", error instanceof Error ? error.message : undefined);
  }
  return {
    headers: compact({
      from: addresses(email.from ? [email.from] : []),
      to: addresses(email.to ?? []),
      cc: addresses(email.cc ?? []),
      date: email.date,
      subject: email.subject,
    }),
    html: email.html,
    text: email.text,
    attachments: email.attachments.map((a, i) => ({
      filename: a.filename ?? `attachment-${i + 1}${a.mimeType === "message/rfc822" ? ".eml" : ""}`,
      bytes: typeof a.content === "string" ? new TextEncoder().encode(a.content) : new Uint8Array(a.content),
      // Images the HTML body shows (cid: references) are part of the body, not documents.
      inline: a.related === true && a.disposition !== "attachment",
    })),
    embedded: [],
  };
}

/** The package is CommonJS with `exports.default`: under Node's ESM interop the class is one level down. */
const MsgReader = (MsgReaderModule as unknown as { default?: typeof MsgReaderModule }).default ?? MsgReaderModule;

function parseMsg(bytes: Uint8Array): Message {
  try {
    const reader = new MsgReader(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const data = reader.getFileData();
    if (data.error) throw new Error(data.error);
    const message = msgFields(data);
    for (const a of data.attachments ?? []) {
      if (a.innerMsgContent && a.innerMsgContentFields)
        message.embedded.push({
          filename: `${a.innerMsgContentFields.subject || a.name || "message"}.msg`,
          message: msgFields(a.innerMsgContentFields),
        });
      else if (!a.innerMsgContent) {
        const attachment = reader.getAttachment(a);
        message.attachments.push({
          filename: attachment.fileName,
          bytes: attachment.content,
          inline: a.attachmentHidden === true,
        });
      }
    }
    return message;
  } catch (error) {
    throw failures.corruptedDocument("This Outlook message", error instanceof Error ? error.message : undefined);
  }
}

type MsgFields = ReturnType<InstanceType<typeof MsgReader>["getFileData"]>;

function msgFields(data: MsgFields): Message {
  const recipients = (type: "to" | "cc") =>
    (data.recipients ?? [])
      .filter((r) => (r.recipType ?? "to") === type)
      .map((r) => mailbox(r.name ?? "", r.smtpAddress ?? r.email ?? ""))
      .join(", ");
  const html = data.bodyHtml ?? (data.html ? new TextDecoder().decode(data.html) : undefined);
  return {
    headers: compact({
      from: mailbox(data.senderName ?? "", data.senderSmtpAddress ?? data.senderEmail ?? ""),
      to: recipients("to"),
      cc: recipients("cc"),
      date: isoDate(data.clientSubmitTime ?? data.messageDeliveryTime ?? data.creationTime),
      subject: data.subject,
    }),
    html,
    text: data.body,
    attachments: [],
    embedded: [],
  };
}

function isoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

function mailbox(name: string, address: string): string {
  if (name && address && name !== address) return `${name} <${address}>`;
  return name || address;
}

function addresses(list: Address[]): string {
  return list
    .flatMap((a) => ("group" in a && a.group ? a.group : [a]))
    .map((a) => mailbox(a.name, "address" in a ? (a.address ?? "") : ""))
    .filter((a) => a !== "")
    .join(", ");
}

function compact(headers: EmailHeaders): EmailHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => typeof v === "string" && v.trim() !== ""));
}

const ORIGINAL_MESSAGE = /^[ \t]*-{2,}\s*(?:Original Message|Forwarded message)\s*-{2,}[ \t]*$/im;

/** The body as Markdown: the subject as its heading, quoted replies as quotes, attachments not read listed. */
async function bodyMarkdown(message: Message, skipped: string[], limits: ExtractLimits, budget: Budget) {
  let body = "";
  if (message.html?.trim()) {
    const html = quoteOriginalHtml(message.html);
    body = await convertHtml(html, { markup: limits.markup, timeoutMs: timeLeft(budget) });
  } else if (message.text?.trim()) body = quoteOriginalText(message.text);
  const subject = message.headers.subject ? `# ${message.headers.subject.replace(/\s+/g, " ")}\n\n` : "";
  const unread = skipped.length
    ? `\n\nAttachments not read (a format not read here, or no text in them): ${skipped.join(", ")}`
    : "";
  return `${subject}${body.trim()}${unread}`;
}

/** Outlook's reply header and what follows it, as a quote (Gmail and Apple Mail use blockquote already). */
function quoteOriginalHtml(html: string): string {
  const marker = /<div[^>]*id=["']?(?:divRplyFwdMsg|appendonsend)["']?[^>]*>/i.exec(html);
  if (!marker) return html;
  const bodyEnd = html.search(/<\/body>/i);
  const end = bodyEnd > marker.index ? bodyEnd : html.length;
  return `${html.slice(0, marker.index)}<blockquote>${html.slice(marker.index, end)}</blockquote>${html.slice(end)}`;
}

/** Text bodies keep their "> " lines (Markdown quotes already); an "Original Message" line starts a quote to the end. */
function quoteOriginalText(text: string): string {
  const normalized = text.replace(/\r\n?/g, "\n");
  const marker = ORIGINAL_MESSAGE.exec(normalized);
  if (!marker) return normalized;
  const quoted = normalized
    .slice(marker.index)
    .split("\n")
    .map((line) => (line.startsWith(">") ? `>${line}` : `> ${line}`))
    .join("\n");
  return `${normalized.slice(0, marker.index)}${quoted}`;
}
