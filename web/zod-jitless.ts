import { z } from "zod";

/**
 * Imported for its effect, before any module of the page that makes a zod
 * schema: the page's Content Security Policy allows no eval
 * (lib/http/security-headers.ts), and zod, when it makes its first object
 * schema, probes for eval with `new Function` (a reported violation) to
 * compile faster parsers. The page parses little; the interpreted parsers do.
 */
z.config({ jitless: true });
